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

// deduper keeps texts that are not too similar to any text kept before:
// by embedding cosine when the client has an embedding model, by content
// words otherwise. It is incremental, so batches of candidates can be
// added as they arrive (each text is embedded once).
type deduper struct {
	c      *Client
	method string
	vecs   [][]float64
	words  []map[string]bool
}

func newDeduper(c *Client) *deduper {
	d := &deduper{c: c, method: "word Jaccard ≥ 0.5"}
	if c != nil && c.EmbeddingModel != "" {
		d.method = "embedding cosine ≥ 0.85"
	}
	return d
}

// add considers texts in order and returns, for each, -1 when it is kept
// or the index (among all texts kept so far) of the text it duplicates.
func (d *deduper) add(ctx context.Context, texts []string) ([]int, error) {
	var vecs [][]float64
	if d.c != nil && d.c.EmbeddingModel != "" && len(texts) > 0 {
		var err error
		if vecs, err = d.c.Embed(ctx, texts); err != nil {
			return nil, err
		}
	}
	out := make([]int, len(texts))
	for i, t := range texts {
		out[i] = -1
		if vecs != nil {
			for k, v := range d.vecs {
				if cosine(vecs[i], v) >= CosineThreshold {
					out[i] = k
					break
				}
			}
			if out[i] < 0 {
				d.vecs = append(d.vecs, vecs[i])
			}
			continue
		}
		w := contentWords(t)
		for k, kw := range d.words {
			if jaccard(w, kw) >= JaccardThreshold {
				out[i] = k
				break
			}
		}
		if out[i] < 0 {
			d.words = append(d.words, w)
		}
	}
	return out, nil
}

// dedup returns the indexes of texts to keep and, for each dropped text,
// the index of the kept text it duplicates.
func dedup(ctx context.Context, c *Client, texts []string) (keep []int, dupOf map[int]int, method string, err error) {
	d := newDeduper(c)
	res, err := d.add(ctx, texts)
	if err != nil {
		return nil, nil, "", err
	}
	dupOf = map[int]int{}
	for i, k := range res {
		if k < 0 {
			keep = append(keep, i)
		} else {
			dupOf[i] = keep[k]
		}
	}
	return keep, dupOf, d.method, nil
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
