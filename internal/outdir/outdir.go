package outdir

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Dir is an output directory being written.
type Dir struct {
	final, tmp string
	done       bool
}

// Begin checks that path can become the output directory of a command
// that writes the files named in known, and creates the temporary
// directory beside it: path must not be a symbolic link, and if it exists
// it must be a directory holding only files named in known (and
// temporary directories of interrupted runs). The checks and the creation
// come before the command's work, so that an unusable --out is reported
// at once; path itself is not created until Commit.
func Begin(path string, known []string) (*Dir, error) {
	if path == "" {
		return nil, errors.New("empty output directory name")
	}
	final := filepath.Clean(path)
	base := filepath.Base(final)
	if base == "." || base == ".." || base == string(filepath.Separator) {
		return nil, fmt.Errorf("%s: name a directory of its own for the output, not %q", path, base)
	}
	if fi, err := os.Lstat(final); err == nil {
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			return nil, fmt.Errorf("%s: a symbolic link; name the directory itself", path)
		case !fi.IsDir():
			return nil, fmt.Errorf("%s: exists and is not a directory", path)
		}
		entries, err := os.ReadDir(final)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if !slices.Contains(known, e.Name()) {
				return nil, fmt.Errorf("%s: holds %q, which this command does not write: refusing to replace a directory that is not its output (name a new or empty directory)", path, e.Name())
			}
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	parent := filepath.Dir(final)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	sweep(parent, base)
	tmp, err := os.MkdirTemp(parent, tempPrefix(base))
	if err != nil {
		return nil, fmt.Errorf("%s: cannot write beside it: %w", path, err)
	}
	return &Dir{final: final, tmp: tmp}, nil
}

// Temp returns the temporary directory, for a writer that fills a
// directory itself; its files must be named in Begin's known.
func (d *Dir) Temp() string { return d.tmp }

// Path returns where the file name is written until Commit.
func (d *Dir) Path(name string) string { return filepath.Join(d.tmp, name) }

// Final returns the output directory's path, and FinalPath a file's path
// in it once committed.
func (d *Dir) Final() string { return d.final }

// FinalPath returns the path name will have after Commit.
func (d *Dir) FinalPath(name string) string { return filepath.Join(d.final, name) }

// WriteFile writes the file name with write, buffered, and syncs it.
func (d *Dir) WriteFile(name string, write func(io.Writer) error) error {
	if strings.ContainsRune(name, filepath.Separator) {
		panic("outdir: a file name with a separator")
	}
	f, err := os.OpenFile(d.Path(name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if err := fill(f, write); err != nil {
		return fmt.Errorf("%s: %w", d.FinalPath(name), err)
	}
	return nil
}

// Commit makes the written files the output directory: the previous one,
// if any, is moved aside and removed once the new one is in place.
func (d *Dir) Commit() error {
	if d.done {
		return errors.New("outdir: committed or aborted already")
	}
	old := ""
	if _, err := os.Lstat(d.final); err == nil {
		aside, err := os.MkdirTemp(filepath.Dir(d.final), "."+filepath.Base(d.final)+".old-")
		if err != nil {
			return err
		}
		old = filepath.Join(aside, "out")
		if err := os.Rename(d.final, old); err != nil {
			os.Remove(aside)
			return err
		}
		defer os.RemoveAll(aside)
	}
	if err := os.Rename(d.tmp, d.final); err != nil {
		if old != "" {
			// Put the previous output back.
			_ = os.Rename(old, d.final)
		}
		return err
	}
	d.done = true
	return nil
}

// Abort removes what was written; the output directory is as it was.
// It does nothing after Commit, so it can be deferred.
func (d *Dir) Abort() {
	if !d.done {
		d.done = true
		os.RemoveAll(d.tmp)
	}
}

// WriteFile writes the file path as a whole: into a temporary file beside
// it, synced, then renamed over path, so that path holds either its
// previous content or the complete new one, and a symbolic link at path is
// replaced rather than written through.
func WriteFile(path string, write func(io.Writer) error) error {
	sweep(filepath.Dir(path), filepath.Base(path))
	f, err := os.CreateTemp(filepath.Dir(path), tempPrefix(filepath.Base(path)))
	if err != nil {
		return err
	}
	err = fill(f, write)
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// fill writes f with write through a buffer, syncs and closes it.
func fill(f *os.File, write func(io.Writer) error) error {
	bw := bufio.NewWriterSize(f, 1<<16)
	err := write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// tempPrefix names the temporary directory or file written for base:
// hidden, and carrying the process's ID so that a later run can tell the
// leftovers of a killed one (sweep).
func tempPrefix(base string) string {
	return "." + base + ".tmp-" + strconv.Itoa(os.Getpid()) + "-"
}

// sweep removes from dir the temporary directories and files that runs
// writing base left behind when they were killed (a run that ends in any
// other way removes its own): those whose process no longer exists. A
// name from an older build, without a process ID, parses as one that
// does not exist, and goes too.
func sweep(dir, base string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	prefix := "." + base + ".tmp-"
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok {
			continue
		}
		digits, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(digits)
		if err != nil || pid == os.Getpid() || alive(pid) {
			continue
		}
		os.RemoveAll(filepath.Join(dir, e.Name()))
	}
}
