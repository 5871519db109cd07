package hone

import "crypto/rand"

const idAlphabet = "abcdefghijkmnpqrstuvwxyz23456789"

// NewID returns a random identifier of n characters from an alphabet without
// look-alike characters, so it can be read aloud and typed back.
func NewID(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	for i := range b {
		b[i] = idAlphabet[int(b[i])%len(idAlphabet)]
	}
	return string(b)
}
