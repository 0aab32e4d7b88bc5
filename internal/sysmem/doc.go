// Package sysmem reports the process's peak resident memory and the
// machine's physical memory, for the CLI's memory report and its check of
// a job's estimated memory against a limit (sizes written by
// FormatBytes), and asks for transparent huge pages behind large arrays
// that are about to be written for the first time and has their pages
// mapped by several goroutines (Touch). Where the
// system does not say (anything but Linux), the reports say ok false and
// the advice does nothing.
//
// It imports only the standard library.
package sysmem
