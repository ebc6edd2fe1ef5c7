// Command gen writes a deterministic, realistic session transcript for
// benchmarks:
//
//	go run ./bench/gen -size 1G -seed 1 -o bench/out/session-1G.jsonl
//
// Sizes take a K, M or G suffix (powers of 1024). Without -o it writes to
// standard output.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/sessionls/sessionls/internal/transcript"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	size := fs.String("size", "64M", "minimum size of the transcript (K, M, G suffixes)")
	seed := fs.Int64("seed", 1, "random seed: one seed, one transcript")
	out := fs.String("o", "", "output file (default standard output)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	n, err := parseSize(*size)
	if err != nil {
		return err
	}
	if *out == "" {
		_, err := transcript.Write(stdout, n, *seed)
		return err
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	if _, err := transcript.Write(f, n, *seed); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// parseSize reads 1G, 64M, 512K or a plain byte count.
func parseSize(s string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, strings.TrimSuffix(s, "G")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, errors.New("size must be a non-negative number with an optional K, M or G suffix, like 64M")
	}
	return n * mult, nil
}
