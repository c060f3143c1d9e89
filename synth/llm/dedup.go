package llm

import (
	"context"
	"math"
	"strings"
	"unicode"
)

// Dedup thresholds. Cosine 0.85 over embeddings is AWM's; the lexical
// fallback (Jaccard over content words) is ours, for endpoints without
// /embeddings.
const (
	CosineThreshold  = 0.85
	JaccardThreshold = 0.5
)

// dedup returns the indexes of texts to keep: each text is dropped when it
// is too similar to one kept before it. It uses the client's embeddings
// when an embedding model is set and falls back to words otherwise; method
// says which was used.
func dedup(ctx context.Context, c *Client, texts []string) (keep []int, dupOf map[int]int, method string, err error) {
	dupOf = map[int]int{}
	var similar func(i, j int) bool
	if c != nil && c.EmbeddingModel != "" {
		vecs, err := c.Embed(ctx, texts)
		if err != nil {
			return nil, nil, "", err
		}
		method = "embedding cosine ≥ 0.85"
		similar = func(i, j int) bool { return cosine(vecs[i], vecs[j]) >= CosineThreshold }
	} else {
		words := make([]map[string]bool, len(texts))
		for i, t := range texts {
			words[i] = contentWords(t)
		}
		method = "word Jaccard ≥ 0.5"
		similar = func(i, j int) bool { return jaccard(words[i], words[j]) >= JaccardThreshold }
	}
	for i := range texts {
		dup := -1
		for _, k := range keep {
			if similar(i, k) {
				dup = k
				break
			}
		}
		if dup >= 0 {
			dupOf[i] = dup
			continue
		}
		keep = append(keep, i)
	}
	return keep, dupOf, method, nil
}

func cosine(a, b []float64) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += a[i] * b[i]
		na += a[i] * a[i]
		nb += b[i] * b[i]
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

var stopWords = map[string]bool{"a": true, "an": true, "and": true, "the": true, "of": true, "for": true,
	"to": true, "in": true, "on": true, "with": true, "by": true, "or": true, "their": true, "its": true,
	"that": true, "where": true, "who": true, "is": true, "are": true, "app": true, "system": true, "service": true}

func contentWords(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(w) > 1 && !stopWords[w] {
			m[strings.TrimSuffix(w, "s")] = true
		}
	}
	return m
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	inter := 0
	for w := range a {
		if b[w] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}
