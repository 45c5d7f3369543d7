package classify_test

import (
	"testing"
)

// The rules the blind sets da- to dh- asked for (round 3, session 10), each
// on lines written from the format it reads; every value is made up.

// A serverless handler that caught its engine's failure still starts its
// job loop and answers every job with the stored error: the loop's banner
// is no readiness, and the engine's failure is the launch's death.
func TestJobLoopAnsweringAStartupErrorIsNoReadiness(t *testing.T) {
	t.Parallel()
	st, alarms := feedSettledState("", `{"requestId": null, "message": "CUDA check passed: 2 GPU(s) available", "level": "INFO"}
{"requestId": null, "message": "Failed to initialize vLLM engine: 403 Forbidden for url https://example.invalid/model/config.json", "level": "ERROR"}
--- Starting Serverless Worker |  Version 1.9.2 ---
{"requestId": null, "message": "Jobs in queue: 1", "level": "INFO"}
{"requestId": "job-0001", "message": "Started.", "level": "INFO"}
{"requestId": null, "message": "Returning startup error to user: Failed to initialize vLLM engine: 403 Forbidden", "level": "ERROR"}
{"requestId": "job-0001", "message": "Finished.", "level": "INFO"}`)
	if r := st.Summary().Ready; r != nil {
		t.Errorf("ready at %d, want no readiness: the job loop only returns the startup error", r.Seq)
	}
	var fatal int
	for _, a := range alarms {
		if a.Fatal {
			fatal++
			if a.HeadlineSeq != 2 {
				t.Errorf("fatal alarm %+v, want it headed by the engine's failure (line 2)", a)
			}
		}
	}
	if fatal != 1 {
		t.Errorf("%d fatal alarms in %+v, want the engine's failure", fatal, alarms)
	}

	// The same job loop after an engine that was built is ready.
	st, alarms = feedSettledState("", `{"requestId": null, "message": "Engine built in 41.2 s", "level": "INFO"}
--- Starting Serverless Worker |  Version 1.9.2 ---
{"requestId": "job-0002", "message": "Started.", "level": "INFO"}
{"requestId": "job-0002", "message": "Finished.", "level": "INFO"}`)
	if st.Summary().Ready == nil || len(alarms) != 0 {
		t.Errorf("ready=%v alarms=%+v, want ready without alarms", st.Summary().Ready, alarms)
	}
}
