module github.com/manifactor/manifactor

go 1.26.8

require (
	github.com/klauspost/cpuid/v2 v2.4.2
	github.com/kljensen/snowball v0.10.0
	gonum.org/v1/gonum v0.17.0
	gonum.org/v1/netlib v0.0.0-20190313105609-8cb42192e0e0
)

require (
	golang.org/x/exp v0.0.0-20261014143641-f0251eb4aa3e // indirect
	golang.org/x/sys v0.41.0 // indirect
)
