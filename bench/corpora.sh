# The corpora of ../shared/data as the bench scripts run them, sourced by
# graphmethods.sh and gnmfsolvers.sh: one entry per corpus,
# "name|data flags|largest k of the protocol|class count" (the protocol's
# k runs from 2 to the third field; one clustering of the whole corpus
# asks for the fourth: 30 for TDT2 and Reuters, their largest classes).
# shellcheck shell=bash
d=../shared/data
corpora=(
	"tdt2|--data $d/tdt2/TDT2.mat|10|30"
	"reuters|--data $d/reuters21578 --single-label --min-class-size 5|10|30"
	"ohscal|--data $d/cluto/ohscal.mat|10|10"
	"la1|--data $d/cluto/la1.mat|6|6"
	"k1b|--data $d/cluto/k1b.mat|6|6"
	"coil20|--data $d/coil20/COIL20.mat|10|20"
	"pie|--data $d/pie/PIE_32x32_10class.mat|10|10"
)
