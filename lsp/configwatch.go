package lsp

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/sessionls/sessionls/config"
)

// The server watches the configuration files of open documents itself, by
// polling, besides what the client reports (configfiles.go): Neovim 0.7
// cannot watch files at all, eglot 1.9 watches only directories that held
// a matching file when it registered (a sessionls.toml created later goes
// unseen), and no client watches outside its workspace folders, where a
// session opened from elsewhere finds its configuration. Once a second the
// worker stats sessionls.toml and .sessionls.toml in the directory of every
// open document and in each directory above it; a file that appeared,
// changed (size or modification time) or went is a configuration change,
// handled as a client's notification would be. A handful of stats a
// second: nothing to measure against an edit.

// configPollInterval is how often the configuration files are looked at.
const configPollInterval = time.Second

// configStamp is what a poll saw of one possible configuration file.
type configStamp struct {
	exists bool
	size   int64
	mtime  time.Time
}

// pollConfigFiles starts the poll, once the client is initialized; it ends
// with the server's context, and serve waits for it (bg).
func (s *server) pollConfigFiles() {
	if s.post == nil {
		return // a server built without serve (tests of single handlers)
	}
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		t := time.NewTicker(configPollInterval)
		defer t.Stop()
		var queued atomic.Bool // a poll is waiting on the worker: do not pile up
		for {
			select {
			case <-s.ctx.Done():
				return
			case <-t.C:
			}
			if queued.Swap(true) {
				continue
			}
			if !s.post(func() {
				defer queued.Store(false)
				s.pollConfigOnce()
			}) {
				return
			}
		}
	}()
}

// pollConfigOnce compares the configuration files near the open documents
// with what the server last read or saw of them, and re-reads them when one
// changed. On the worker.
func (s *server) pollConfigOnce() {
	if changed := s.stampConfigFiles(stampPoll); changed != "" {
		s.logger.Info("configuration file changed on disk", zap.String("path", changed))
		s.configChanged() // stamps them again once read
	}
}

// stampMode says what stampConfigFiles records.
type stampMode int

const (
	// stampPoll: record everything, and report the first file that
	// differs from its record.
	stampPoll stampMode = iota
	// stampAll: every file was just read (the files changed): record
	// everything as it is now.
	stampAll
	// stampNew: a document just opened and read the files near it: record
	// the ones not recorded yet, keeping the rest, so that a change already
	// pending near another document is still seen by the next poll.
	stampNew
)

// stampConfigFiles records what the configuration files near the open
// documents look like now (see stampMode), so that a poll compares with
// what the server read, not with what an earlier poll happened to see. In
// stampPoll mode it returns the first file that changed ("" for none).
func (s *server) stampConfigFiles(mode stampMode) string {
	detect := mode == stampPoll
	now := make(map[string]configStamp)
	changed := ""
	seen := make(map[string]bool)
	for _, f := range s.files.all() {
		p, ok := filePath(f.uri)
		if !ok {
			continue
		}
		for dir := filepath.Dir(p); !seen[dir]; dir = filepath.Dir(dir) {
			seen[dir] = true
			for _, name := range [...]string{config.Name, config.DotName} {
				path := filepath.Join(dir, name)
				old, recorded := s.configStamps[path]
				if mode == stampNew && recorded {
					now[path] = old
					continue
				}
				var st configStamp
				if fi, err := os.Stat(path); err == nil {
					st = configStamp{exists: true, size: fi.Size(), mtime: fi.ModTime()}
				}
				now[path] = st
				// A path not recorded yet is how the document was analysed
				// when it opened: not a change.
				if detect && recorded && old != st && changed == "" {
					changed = path
				}
			}
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	s.configStamps = now
	return changed
}
