// Command llmrelay serves an OpenAI-compatible chat-completions endpoint on
// 127.0.0.1 whose answers are files written by a person or a model that
// cannot be reached over HTTP (internal/relay describes the files), and
// records every exchange for replay:
//
//	llmrelay -dir /tmp/relay -addr 127.0.0.1:8931 -model "claude (via relay)"
//	wasmenv synth llm --base-url http://127.0.0.1:8931/v1 --model "claude (via relay)" ...
//
// Each request appears as DIR/pending/N.prompt.md; write N.answer.txt (the
// content) or N.answer.json (content and tool calls) beside it.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strings"

	"github.com/wasmenv/wasmenv/internal/relay"
)

func main() {
	dir := flag.String("dir", "relay", "directory for the pending requests, answers and the recording")
	addr := flag.String("addr", "127.0.0.1:8931", "address to listen on (a loopback address)")
	model := flag.String("model", "claude (via relay)", "model name reported in every response")
	flag.Parse()
	host, _, err := net.SplitHostPort(*addr)
	if err != nil || !(host == "127.0.0.1" || host == "localhost" || strings.HasPrefix(host, "127.")) {
		fmt.Fprintf(os.Stderr, "llmrelay: -addr %q: want a loopback address such as 127.0.0.1:8931\n", *addr)
		os.Exit(2)
	}
	r := &relay.Relay{Dir: *dir, Model: *model, Log: func(s string) { log.Print(s) }}
	if err := r.Open(); err != nil {
		log.Fatal(err)
	}
	log.Printf("relay on http://%s/v1, files in %s", *addr, *dir)
	log.Fatal(http.ListenAndServe(*addr, r))
}
