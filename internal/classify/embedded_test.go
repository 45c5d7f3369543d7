package classify_test

import "testing"

// A structured logger may carry a whole traceback in one record's message
// (tracing's JSON output, python-json-logger's exc_info): that one line is a
// complete event, headed by its final exception.
func TestTracebackInsideOneRecordIsAnEvent(t *testing.T) {
	t.Parallel()
	run := feedBothWays(t, "", `{"timestamp":"2030-02-03T04:05:06.000001Z","level":"INFO","fields":{"message":"Starting shard"},"target":"text_generation_launcher"}
{"timestamp":"2030-02-03T04:05:09.000001Z","level":"ERROR","fields":{"message":"Error when initializing model\nTraceback (most recent call last):\n  File \"/srv/server.py\", line 8, in serve\n    load()\nKeyError: 'lm_head.weight'"},"target":"text_generation_launcher"}
{"asctime": "2030-02-03 04:05:10,000", "levelname": "WARNING", "name": "x", "message": "optional kernel missing", "exc_info": "Traceback (most recent call last):\n  File \"/srv/k.py\", line 1, in <module>\nModuleNotFoundError: No module named 'fastkern'"}
{"timestamp":"2030-02-03T04:05:11.000001Z","level":"INFO","fields":{"message":"Shutting down shards"},"target":"text_generation_launcher"}`)
	if len(run.Alarms) != 1 {
		t.Fatalf("alarms %+v, want the KeyError record alone (the WARNING record is a warning)", run.Alarms)
	}
	if a := run.Alarms[0]; a.HeadlineSeq != 2 || !a.Fatal {
		t.Errorf("alarm %+v, want a fatal alarm headed by line 2", a)
	}
}
