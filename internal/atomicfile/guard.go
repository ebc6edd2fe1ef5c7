package atomicfile

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Errors a guarded replacement returns, wrapped with the path and the
// details; test with errors.Is.
var (
	// ErrChanged: the file is no longer the one that was read (replaced,
	// truncated or rewritten), so a replacement would lose what the other
	// writer wrote. Nothing was written.
	ErrChanged = errors.New("it changed while being read")
	// ErrBusy: another process kept the file open for longer than the
	// replacement waits, and it may be writing. Nothing was written.
	ErrBusy = errors.New("another process has it open")
	// ErrReadOnly: the file's mode allows no one to write it, so it is not
	// rewritten (as ruff and black refuse). Nothing was written.
	ErrReadOnly = errors.New("it is read-only")
	// ErrLastLineGrew: the last line read had no line break and more bytes
	// were appended to it since: it was being written. Reading the file
	// again and redoing the work is likely to succeed.
	ErrLastLineGrew = errors.New("its last line was still being written")
)

// Source is a file to be read and then replaced by a new version (a fixed
// or trimmed one) without losing a byte that another process appends to it
// meanwhile, as an agent runtime does with fs.promises.appendFile (no lock,
// no fsync, a new open for every append).
//
// Read it through the Source (which records how many bytes were read and
// their SHA-256); Again re-reads exactly those bytes. Replace then writes
// the new version to a temporary file and, only if the file is still the
// one read, with the same identity and the same first bytes, renames it
// over the file, after carrying over whatever was appended since.
//
// On Linux the commit runs under write leases (fcntl F_SETLEASE) on the old
// file and on the new one: while they are held, another process's open of
// either blocks, so no append can start between the check and the rename,
// and an open that was already waiting on the old file when it was renamed
// is let through and its bytes carried into the new file before anyone can
// write there. A file another process keeps open (a writer holding its
// descriptor, `tail -f`) cannot be leased: Replace waits a few seconds for
// it to be closed and otherwise refuses with ErrBusy. Where leases are not
// supported (other systems, NFS, files the process does not own without
// CAP_LEASE) the same checks run without them, and a short window remains
// between the last check and the rename, watched for a moment afterwards.
type Source struct {
	path string // the file itself: callers resolve symbolic links first
	f    *os.File
	info fs.FileInfo

	sum  hash.Hash // of the bytes read through Read
	n    int64     // how many
	last byte      // the last of them

	// busyWait bounds the waits for other processes to close the file.
	busyWait time.Duration
	// grace is how long the commit watches the old file for late appends
	// where there are no leases.
	grace time.Duration
}

// Open opens path, a regular file that must not be a symbolic link (resolve
// links first, with the policy of the caller), for reading and a later
// guarded replacement. Its errors are *fs.PathError, for the caller to word.
func Open(path string) (*Source, error) {
	f, err := openNoFollow(path)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: errors.New("not a regular file")}
	}
	return &Source{path: path, f: f, info: info, sum: sha256.New(), busyWait: 5 * time.Second, grace: 50 * time.Millisecond}, nil
}

// Read reads the file from where the previous Read stopped, recording what
// it reads.
func (s *Source) Read(p []byte) (int, error) {
	n, err := s.f.ReadAt(p, s.n)
	if n > 0 {
		s.sum.Write(p[:n])
		s.n += int64(n)
		s.last = p[n-1]
	}
	return n, err
}

// Size is how many bytes were read through Read.
func (s *Source) Size() int64 { return s.n }

// Again reads the bytes that Read returned, again, from the same open file.
func (s *Source) Again() io.Reader { return io.NewSectionReader(s.f, 0, s.n) }

// Close closes the file.
func (s *Source) Close() error { return s.f.Close() }

// Replaced says what a replacement carried over.
type Replaced struct {
	// Carried counts the bytes other processes appended after the file was
	// read, copied after the new version.
	Carried int64
}

// Replace writes the new version of the bytes read (write fills it) and
// puts it in the file's place, followed by any bytes appended to the file
// since it was read. It writes nothing, and says why, when the file was
// replaced, truncated or rewritten since (ErrChanged), when the last line
// read was still being written (ErrLastLineGrew), or when another process
// keeps it open (ErrBusy). The new file keeps the old one's mode, owner,
// group and extended attributes (an attribute that cannot be kept makes it
// refuse). A file whose mode has no write bit is refused with ErrReadOnly.
func (s *Source) Replace(write func(io.Writer) error) (res Replaced, err error) {
	if perm := s.info.Mode().Perm(); perm&0o222 == 0 {
		return res, fmt.Errorf("cannot write %s: %w (mode %04o); nothing was written, make it writable to fix it", s.path, ErrReadOnly, perm)
	}
	dir := filepath.Dir(s.path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(s.path)+".tmp-*")
	if err != nil {
		return res, failed(s.path, err)
	}
	renamed := false
	defer func() {
		if !renamed {
			os.Remove(tmp.Name())
		}
		tmp.Close()
	}()
	if err := write(tmp); err != nil {
		return res, failed(s.path, err)
	}
	if err := copyXattrs(s.f, tmp); err != nil {
		return res, fmt.Errorf("cannot write %s: %w; nothing was written", s.path, err)
	}
	keepOwner(tmp, s.info)
	if err := tmp.Chmod(s.info.Mode() & keptMode); err != nil {
		return res, failed(s.path, err)
	}

	// The commit. From here on, under a lease where there is one.
	leased, err := s.lease(s.f)
	if err != nil {
		return res, err
	}
	defer func() {
		if leased {
			unlease(s.f)
		}
	}()
	cur, err := s.verify()
	if err != nil {
		return res, err
	}
	if cur > s.n {
		if err := s.carry(tmp, s.n, cur); err != nil {
			return res, err
		}
		res.Carried = cur - s.n
	}
	if err := tmp.Sync(); err != nil {
		return res, failed(s.path, err)
	}
	// Lease the new file too before it takes the name: an append that
	// starts after the rename waits until any late bytes of the old file
	// are in.
	if leased {
		if ok, _ := tryLease(tmp); ok {
			defer unlease(tmp)
		}
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		return res, failed(s.path, err)
	}
	renamed = true
	syncDir(dir)

	// Late appends to the old file: by an open that was already waiting
	// on the lease (it resolved the old name before the rename), or, with
	// no lease, by a writer that slipped in after the check.
	end := cur
	if leased {
		waiting := breakPending(s.f)
		unlease(s.f)
		leased = false
		if waiting {
			if ok := s.waitAlone(); !ok {
				return res, fmt.Errorf("%s was replaced, but another process still has the old file open and what it writes there now is not in the new one: %w", s.path, ErrBusy)
			}
			unlease(s.f)
		}
	} else {
		time.Sleep(s.grace)
	}
	if fi, err := s.f.Stat(); err == nil && fi.Size() > end {
		if _, err := tmp.Seek(0, io.SeekEnd); err != nil {
			return res, failed(s.path, err)
		}
		if err := s.carry(tmp, end, fi.Size()); err != nil {
			return res, err
		}
		res.Carried += fi.Size() - end
		if err := tmp.Sync(); err != nil {
			return res, failed(s.path, err)
		}
	}
	return res, nil
}

// lease takes a write lease on f, waiting up to busyWait while another
// process has the file open; false where leases are not supported.
func (s *Source) lease(f *os.File) (bool, error) {
	deadline := time.Now().Add(s.busyWait)
	pause := 2 * time.Millisecond
	for {
		ok, err := tryLease(f)
		if err == nil {
			return ok, nil
		}
		if !errors.Is(err, errLeaseBusy) {
			return false, nil // not supported here: the checks alone
		}
		if time.Now().After(deadline) {
			return false, fmt.Errorf("cannot write %s: %w (it may be writing to it); nothing was written, close it and run again", s.path, ErrBusy)
		}
		time.Sleep(pause)
		pause = min(2*pause, 100*time.Millisecond)
	}
}

// waitAlone waits until no other process has the old file open (a lease
// can be taken again), up to busyWait, and holds that lease.
func (s *Source) waitAlone() bool {
	deadline := time.Now().Add(s.busyWait)
	pause := time.Millisecond
	for {
		ok, err := tryLease(s.f)
		if err == nil && ok {
			return true
		}
		if err != nil && !errors.Is(err, errLeaseBusy) {
			return false
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pause)
		pause = min(2*pause, 50*time.Millisecond)
	}
}

// verify checks that the file at the path is still the one read and begins
// with the bytes read, and returns its size now.
func (s *Source) verify() (int64, error) {
	now, err := os.Stat(s.path)
	if err != nil {
		return 0, fmt.Errorf("cannot write %s: %w (%v); nothing was written", s.path, ErrChanged, unwrapPath(err))
	}
	cur, err := s.f.Stat()
	if err != nil {
		return 0, failed(s.path, err)
	}
	if !os.SameFile(now, cur) {
		return 0, fmt.Errorf("cannot write %s: %w (another file was put in its place); nothing was written", s.path, ErrChanged)
	}
	if cur.Size() < s.n {
		return 0, fmt.Errorf("cannot write %s: %w (it shrank from %d to %d bytes); nothing was written", s.path, ErrChanged, s.n, cur.Size())
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(s.f, 0, s.n)); err != nil {
		return 0, failed(s.path, err)
	}
	if !bytes.Equal(h.Sum(nil), s.sum.Sum(nil)) {
		return 0, fmt.Errorf("cannot write %s: %w (its first %d bytes are not those read); nothing was written", s.path, ErrChanged, s.n)
	}
	if cur.Size() > s.n && s.n > 0 && s.last != '\n' {
		return 0, fmt.Errorf("cannot write %s: %w; nothing was written", s.path, ErrLastLineGrew)
	}
	return cur.Size(), nil
}

// carry copies the old file's bytes [from, to) to the end of w.
func (s *Source) carry(w io.Writer, from, to int64) error {
	if _, err := io.Copy(w, io.NewSectionReader(s.f, from, to-from)); err != nil {
		return failed(s.path, err)
	}
	return nil
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// syncDir persists a rename in dir; best effort (not every system can fsync
// a directory), the data is already safe.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
