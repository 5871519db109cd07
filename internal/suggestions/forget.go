package suggestions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/honehq/hone"
	"github.com/honehq/hone/internal/ndjson"
	"github.com/honehq/hone/suggest"
)

// forgetHistory removes a session's JSONL history below root (of one
// server, or of every server when server is ""), and returns the folders
// it removed or took the session's lines out of. It looks in the folders
// suggest.PathPart names, and in those the names had before
// (legacyPathPart), which several names could share: a folder is removed
// when its history holds no record of another session (of another server,
// when server is given), else only the session's lines are taken out of
// it. Nothing outside root is touched, and no link is followed: a folder
// that is a link is left as it is.
func (s *Service) forgetHistory(root, server, session string) ([]string, error) {
	out := []string{}
	dir, err := os.OpenRoot(root)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	} else if err != nil {
		return out, fmt.Errorf("open the suggestion history %s: %w", root, err)
	}
	defer dir.Close()
	var servers []string
	if server != "" {
		servers = folderNames(server)
	} else {
		entries, err := fs.ReadDir(dir.FS(), ".")
		if err != nil {
			return out, fmt.Errorf("read the suggestion history %s: %w", root, err)
		}
		for _, e := range entries {
			servers = append(servers, e.Name())
		}
	}
	for _, sv := range servers {
		if !s.isFolder(dir, root, sv) {
			continue
		}
		for _, name := range folderNames(session) {
			rel := filepath.Join(sv, name)
			if !s.isFolder(dir, root, rel) {
				continue
			}
			done, err := forgetFolder(dir, rel, server, session)
			if err != nil {
				return out, fmt.Errorf("forget the suggestion history %s: %w", filepath.Join(root, rel), err)
			}
			if done {
				out = append(out, filepath.Join(root, rel))
			}
		}
	}
	return out, nil
}

// folderNames are the folders a name may have in the history tree: as
// suggest.PathPart names it, and as it was named before.
func folderNames(name string) []string {
	return slices.Compact([]string{suggest.PathPart(name), legacyPathPart(name)})
}

// isFolder reports whether rel is a folder below dir, not a link.
func (s *Service) isFolder(dir *os.Root, root, rel string) bool {
	info, err := dir.Lstat(rel)
	switch {
	case err != nil:
		return false
	case info.Mode()&fs.ModeSymlink != 0:
		s.log.Warn("suggestion history: a link is not followed", "path", filepath.Join(root, rel))
		return false
	}
	return info.IsDir()
}

// forgetFolder takes the session's records out of the history in the
// folder rel: it removes the folder when nothing in it is another
// session's, else writes its history again without the session's lines.
// It reports whether it changed anything.
func forgetFolder(dir *os.Root, rel, server, session string) (bool, error) {
	file := filepath.Join(rel, suggest.HistoryFile)
	keep, ours, others, err := sortHistory(dir, file, server, session)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	if others == 0 {
		return true, dir.RemoveAll(rel)
	}
	if ours == 0 {
		return false, nil
	}
	tmp := file + ".forget"
	if err := dir.WriteFile(tmp, keep, 0o600); err != nil {
		return false, err
	}
	if err := dir.Rename(tmp, file); err != nil {
		_ = dir.Remove(tmp)
		return false, err
	}
	return true, nil
}

// sortHistory reads a history file and returns the lines to keep when the
// session's are taken out (other sessions' records, and lines that are no
// record), and counts the session's records and the others'. A line
// longer than suggest.MaxLine, which no reader reads, is not kept.
func sortHistory(dir *os.Root, file, server, session string) (keep []byte, ours, others int, err error) {
	f, err := dir.Open(file)
	if err != nil {
		return nil, 0, 0, err
	}
	defer f.Close()
	var buf bytes.Buffer
	r := ndjson.NewReader(f, suggest.MaxLine)
	for {
		_, data, err := r.Next()
		switch {
		case err == io.EOF:
			return buf.Bytes(), ours, others, nil
		case hone.ErrorCode(err) == hone.ETOOLARGE:
			continue
		case err != nil:
			return nil, 0, 0, err
		}
		var names struct{ Server, Session *string }
		if json.Unmarshal(data, &names) == nil {
			if name(names.Session) == session && (server == "" || name(names.Server) == server) {
				ours++
				continue
			}
			others++
		}
		buf.Write(data)
		buf.WriteByte('\n')
	}
}

// name is a record's server or session name as hone keeps it.
func name(p *string) string {
	if p == nil {
		return ""
	}
	return strings.TrimSpace(hone.CleanText(*p))
}

// legacyPathPart is the folder of a name in histories written before
// names were escaped: path separators and characters file systems refuse
// became _, and a name that was empty, . or .. became _ too, so several
// names could share a folder.
func legacyPathPart(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r < 0x20 || r == 0x7f, strings.ContainsRune(`/\:*?"<>|`, r):
			b.WriteByte('_')
		default:
			b.WriteRune(r)
		}
	}
	s := b.String()
	if s == "" || s == "." || s == ".." {
		return "_"
	}
	return s
}
