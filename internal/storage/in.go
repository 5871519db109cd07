package storage

import (
	"iter"
	"slices"
	"strings"
)

// inChunk bounds the values of one IN list, well within every database's
// limit of parameters.
const inChunk = 500

// placeholders is "?, ?, …" for n values.
func placeholders(n int) string {
	return "?" + strings.Repeat(", ?", n-1)
}

// anySlice makes query arguments of strings.
func anySlice(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// chunkIDs yields ids in parts of at most inChunk.
func chunkIDs(ids []string) iter.Seq[[]string] {
	return slices.Chunk(ids, inChunk)
}
