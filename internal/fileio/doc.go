// Package fileio opens the files a user names for reading: regular
// files only, without blocking. Opening a named pipe for reading waits
// for a writer, in a system call that no signal ends, so a FIFO given as
// a data, labels, graph or model file hung the process; here it is
// opened without waiting and refused, as are devices (/dev/zero would be
// read forever) and directories.
//
// It imports only the standard library.
package fileio
