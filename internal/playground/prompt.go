package playground

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/honehq/hone"
)

// Prompt is a system prompt file. Its version is a hash of its content, so
// editing the file makes a new version, and a new version a new session.
type Prompt struct {
	path string

	mu      sync.Mutex
	modTime time.Time
	size    int64
	text    string
	version string
}

// versionLength is how many hex digits of the content hash name a version.
const versionLength = 12

// LoadPrompt reads the prompt file at path.
func LoadPrompt(path string) (*Prompt, error) {
	if strings.TrimSpace(path) == "" {
		return nil, hone.FieldError("prompt", "a prompt file is required (--prompt FILE or HONE_PROMPT_FILE)")
	}
	p := &Prompt{path: path}
	if _, _, err := p.Current(); err != nil {
		return nil, err
	}
	return p, nil
}

// Name is the file's base name, for people to pick it by.
func (p *Prompt) Name() string { return filepath.Base(p.path) }

// Path is where the file is.
func (p *Prompt) Path() string { return p.path }

// Current returns the file's text and version, reading it again when it
// changed on disk since the last call.
func (p *Prompt) Current() (text, version string, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fi, err := os.Stat(p.path)
	if err != nil {
		return "", "", hone.Errorf(hone.EINVALID, "cannot read the prompt file %s: %v", p.path, err)
	}
	if p.version != "" && fi.ModTime().Equal(p.modTime) && fi.Size() == p.size {
		return p.text, p.version, nil
	}
	b, err := os.ReadFile(p.path)
	if err != nil {
		return "", "", hone.Errorf(hone.EINVALID, "cannot read the prompt file %s: %v", p.path, err)
	}
	if strings.TrimSpace(string(b)) == "" {
		return "", "", hone.Errorf(hone.EINVALID, "the prompt file %s is empty", p.path)
	}
	sum := sha256.Sum256(b)
	p.text, p.version = string(b), hex.EncodeToString(sum[:])[:versionLength]
	p.modTime, p.size = fi.ModTime(), fi.Size()
	return p.text, p.version, nil
}

func (p *Prompt) String() string { return fmt.Sprintf("%s (%s)", p.path, p.version) }
