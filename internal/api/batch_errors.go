package api

import (
	"net/http"

	"github.com/honehq/hone/internal/ndjson"
	"github.com/honehq/hone/internal/server"
)

// batchErrors counts the items of a batch that failed: the first
// ndjson.ListedErrors are listed in full, the others only counted.
type batchErrors struct {
	failed, notListed int
}

// add counts err, returning its detail when it is listed and nil when it is
// only counted.
func (b *batchErrors) add(err error) *server.ErrorDetail {
	b.failed++
	if b.failed > ndjson.ListedErrors {
		b.notListed++
		return nil
	}
	d := server.Detail(err)
	return &d
}

// status is the answer's status: 207 when an item failed.
func (b *batchErrors) status() int {
	if b.failed > 0 {
		return http.StatusMultiStatus
	}
	return http.StatusOK
}
