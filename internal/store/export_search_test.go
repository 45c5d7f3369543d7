package store

// SearchByRows makes s read a search's candidates as it does when their
// blocks change under it: line by line wherever each is, texts filled in
// afterwards (the fallback of searchGroupInGo).
func SearchByRows(s *Store) { s.searchByRows = true }
