package suggest_test

import (
	"encoding/json"

	"github.com/honehq/hone/suggest"
)

func jsonLine(r *suggest.Record) (string, error) {
	b, err := json.Marshal(r)
	return string(b), err
}
