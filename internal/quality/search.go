package quality

import (
	"bytes"
	"encoding/json"
	"math"
)

// searchResult is one retrieved chunk.
type searchResult struct {
	text          string
	similarity    float64
	hasSimilarity bool
}

// rawResult is the object form of a search result.
type rawResult struct {
	ChunkText  *string  `json:"chunk_text"`
	Text       *string  `json:"text"`
	Content    *string  `json:"content"`
	Similarity *float64 `json:"similarity"`
	Score      *float64 `json:"score"`
}

// wrapperKeys are the keys under which an object may hold the result array.
var wrapperKeys = []string{"results", "search_results", "chunks", "matches", "documents"}

// parseSearchResults reads the bot's search results. It accepts an array
// whose elements are strings (chunk text) or objects with the chunk text in
// chunk_text, text or content (first present wins) and the similarity in
// similarity or score; an object holding such an array under results,
// search_results, chunks, matches or documents is also accepted. Anything it
// cannot read counts as no results.
func parseSearchResults(data json.RawMessage) []searchResult {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil
	}
	if data[0] == '{' {
		var obj map[string]json.RawMessage
		if json.Unmarshal(data, &obj) != nil {
			return nil
		}
		for _, k := range wrapperKeys {
			if v, ok := obj[k]; ok {
				return parseSearchResults(v)
			}
		}
		return nil
	}
	if data[0] != '[' {
		return nil
	}
	var objs []rawResult
	if json.Unmarshal(data, &objs) == nil {
		out := make([]searchResult, 0, len(objs))
		for i := range objs {
			out = append(out, objs[i].result())
		}
		return out
	}
	var elems []json.RawMessage
	if json.Unmarshal(data, &elems) != nil {
		return nil
	}
	out := make([]searchResult, 0, len(elems))
	for _, e := range elems {
		if r, ok := parseSearchResult(e); ok {
			out = append(out, r)
		}
	}
	return out
}

// parseSearchResult reads one element of the results array.
func parseSearchResult(e json.RawMessage) (searchResult, bool) {
	e = bytes.TrimSpace(e)
	if len(e) == 0 {
		return searchResult{}, false
	}
	switch e[0] {
	case '"':
		var s string
		if json.Unmarshal(e, &s) != nil {
			return searchResult{}, false
		}
		return searchResult{text: s}, true
	case '{':
		var raw rawResult
		if json.Unmarshal(e, &raw) != nil {
			raw = looseResult(e)
		}
		return raw.result(), true
	}
	return searchResult{}, false
}

// result converts the object form of a search result.
func (raw *rawResult) result() searchResult {
	var r searchResult
	for _, t := range []*string{raw.ChunkText, raw.Text, raw.Content} {
		if t != nil {
			r.text = *t
			break
		}
	}
	for _, v := range []*float64{raw.Similarity, raw.Score} {
		if v != nil && !math.IsNaN(*v) && !math.IsInf(*v, 0) {
			r.similarity, r.hasSimilarity = *v, true
			break
		}
	}
	return r
}

// looseResult reads the fields of a result object whose fields have
// unexpected types, keeping those of the expected type.
func looseResult(e json.RawMessage) rawResult {
	var m map[string]any
	var r rawResult
	if json.Unmarshal(e, &m) != nil {
		return r
	}
	str := func(k string) *string {
		if s, ok := m[k].(string); ok {
			return &s
		}
		return nil
	}
	num := func(k string) *float64 {
		if f, ok := m[k].(float64); ok {
			return &f
		}
		return nil
	}
	r.ChunkText, r.Text, r.Content = str("chunk_text"), str("text"), str("content")
	r.Similarity, r.Score = num("similarity"), num("score")
	return r
}
