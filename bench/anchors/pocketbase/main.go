// PocketBase as a benchmark anchor (docs/performance.md, P9 and P16): the stock
// server, started the standard way, so its figures are those of an unmodified
// PocketBase. The harness runs `superuser upsert` and `serve` on this binary.
package main

import (
	"log"

	"github.com/pocketbase/pocketbase"
)

func main() {
	app := pocketbase.New()
	if err := app.Start(); err != nil {
		log.Fatal(err)
	}
}
