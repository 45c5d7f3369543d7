// Package linesearch is what a search of a launch's log asks of its lines,
// apart from the SQL that asks it: the prefilter of literals every line a
// search (a substring or an RE2 expression) matches must contain, and the
// trigram bloom filter of a chunk of consecutive lines that the search
// index keeps, with the filter bits a literal needs. internal/store stores
// the filters, turns a prefilter into ILIKE and bloom conditions, and
// applies the expression itself to the candidate lines. Pure: no I/O.
package linesearch
