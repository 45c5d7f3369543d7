// Package export turns the team's decisions into labeled data: the JSONL
// record of one decided alarm (GET /api/v1/export/alarms.jsonl), its page
// cursor, the since= time, and a reviewed launch as a case of the shared
// corpus format (NAME.log + NAME.json) that `launchwatch eval` scores.
// It holds no I/O: the server fills records from the store, the command
// line builds cases from what the API answers.
package export
