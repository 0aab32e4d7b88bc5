// Package sysmem reports the process's peak resident memory and the
// machine's physical memory, for the CLI's memory report and its check of
// a job's estimated memory against a limit. Where the system does not say
// (anything but Linux), the functions report ok false.
//
// It imports only the standard library.
package sysmem
