package decode

import (
	"encoding/json"
	"fmt"
	"math"
	"mime"
	"net/http"
	"strings"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"google.golang.org/protobuf/encoding/protowire"
)

// OTLP resource attributes that name the launch, in order of preference.
const (
	OTLPLaunchAttr   = "launchwatch.launch"
	otlpInstanceAttr = "service.instance.id"
)

// otlpRecordNumberAttr is the log record attribute in which the
// OpenTelemetry Collector's filelog receiver numbers the lines of a file
// (include_file_record_number: true). It is part of a line's duplicate
// key: two equal lines read at one nanosecond are two lines, not a retry.
const otlpRecordNumberAttr = "log.file.record_number"

// OTLPEncoding is the wire encoding of an OTLP/HTTP request, which its
// answer must use too.
type OTLPEncoding int

// OTLP/HTTP encodings.
const (
	OTLPProto OTLPEncoding = iota // application/x-protobuf
	OTLPJSON                      // application/json
)

// OTLPEncodingOf maps a Content-Type header to an OTLP encoding.
func OTLPEncodingOf(contentType string) (OTLPEncoding, error) {
	mt, _, err := mime.ParseMediaType(contentType)
	if err == nil {
		switch mt {
		case "application/x-protobuf", "application/protobuf":
			return OTLPProto, nil
		case "application/json":
			return OTLPJSON, nil
		}
	}
	return 0, &InputError{Status: http.StatusUnsupportedMediaType,
		Message: fmt.Sprintf("unsupported Content-Type %q: OTLP/HTTP is application/x-protobuf or application/json", contentType)}
}

// OTLPResult is a decoded export request: the lines by launch, and the log
// records that were rejected because their resource names no launch.
type OTLPResult struct {
	Batches  []Batch
	Rejected int64
	Reason   string // why records were rejected, for partial_success
}

// OTLP decodes an OTLP/HTTP ExportLogsServiceRequest with the
// OpenTelemetry Collector's pdata (hex trace ids and int64 strings in JSON
// as the OTLP spec maps them). The resource attribute launchwatch.launch,
// else service.instance.id, names the launch; records of a resource with
// neither are rejected (reported as partial success), not the request.
// Lines keep the request's order; severity becomes the line's level.
func OTLP(body []byte, enc OTLPEncoding, maxLineBytes int) (OTLPResult, error) {
	req := plogotlp.NewExportRequest()
	var err error
	if enc == OTLPJSON {
		err = req.UnmarshalJSON(body)
	} else {
		err = req.UnmarshalProto(body)
	}
	if err != nil {
		return OTLPResult{}, BadRequest("body is not an OTLP ExportLogsServiceRequest: %v", err)
	}
	if req.Logs().LogRecordCount() > MaxBatchLines {
		return OTLPResult{}, TooManyLines()
	}
	var res OTLPResult
	index := map[string]int{}
	groups := map[string]int{}
	rls := req.Logs().ResourceLogs()
	for i := range rls.Len() {
		rl := rls.At(i)
		attrs := stringAttrs(rl.Resource().Attributes())
		key := launchKeyFrom(attrs[OTLPLaunchAttr])
		if key == "" {
			key = launchKeyFrom(attrs[otlpInstanceAttr])
		}
		if key == "" {
			res.Rejected += int64(countRecords(rl))
			res.Reason = fmt.Sprintf("a resource has neither %s nor %s: its log records name no launch", OTLPLaunchAttr, otlpInstanceAttr)
			continue
		}
		j, ok := index[key]
		if !ok {
			j = len(res.Batches)
			index[key] = j
			res.Batches = append(res.Batches, Batch{Key: key})
		}
		b := &res.Batches[j]
		mergeAttrs(&b.Attrs, attrsFrom(attrs, []string{"launchwatch.server"}, []string{"host.name"},
			[]string{"service.name"}, []string{OTLPLaunchAttr, otlpInstanceAttr}))
		resource := canonicalLabels(attrs)
		sls := rl.ScopeLogs()
		for k := range sls.Len() {
			sl := sls.At(k)
			stream := resource + "\x00" + sl.Scope().Name() + "\x00" + sl.Scope().Version()
			group, ok := groups[stream]
			if !ok {
				group = len(groups) + 1
				groups[stream] = group
			}
			lrs := sl.LogRecords()
			for m := range lrs.Len() {
				l := otlpLine(lrs.At(m), stream, maxLineBytes)
				l.group = group
				b.Lines = append(b.Lines, l)
			}
		}
	}
	for i := range res.Batches {
		orderSeqless(res.Batches[i].Lines)
	}
	return res, nil
}

func otlpLine(lr plog.LogRecord, stream string, maxLineBytes int) Line {
	// Times are unsigned nanoseconds; past 2^63 (year 2262) they are no
	// time, and would wrap to a negative int64 (1677-1969).
	ns := lr.Timestamp()
	if ns == 0 || ns > math.MaxInt64 {
		ns = lr.ObservedTimestamp()
	}
	if ns > math.MaxInt64 {
		ns = 0
	}
	l := Line{Text: cleanLine([]byte(lr.Body().AsString()), maxLineBytes), Level: severity(lr)}
	if ns != 0 {
		l.TS = time.Unix(0, int64(ns)).UTC()
		if n, ok := lr.Attributes().Get(otlpRecordNumberAttr); ok {
			stream += "\x00record " + n.AsString()
		}
		l.Key = LineKey(stream, l.TS, l.Text)
	}
	// A record with no time at all has no identity to tell a retry from a
	// repeat: it is always stored.
	return l
}

// severity is the record's severity text, else the name of its number's range.
func severity(lr plog.LogRecord) string {
	if t := strings.TrimSpace(lr.SeverityText()); t != "" {
		return strings.ToUpper(oneLine(t))
	}
	n := int(lr.SeverityNumber())
	names := []string{"TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"}
	if n < 1 || n > 24 {
		return ""
	}
	return names[(n-1)/4]
}

func countRecords(rl plog.ResourceLogs) int {
	n := 0
	sls := rl.ScopeLogs()
	for i := range sls.Len() {
		n += sls.At(i).LogRecords().Len()
	}
	return n
}

// stringAttrs flattens attributes to strings (non-strings as their JSON).
func stringAttrs(m pcommon.Map) map[string]string {
	out := make(map[string]string, m.Len())
	m.Range(func(k string, v pcommon.Value) bool {
		out[k] = v.AsString()
		return true
	})
	return out
}

// OTLPResponse encodes the ExportLogsServiceResponse for a stored request
// in the request's encoding, with partial_success when records were rejected.
func OTLPResponse(enc OTLPEncoding, rejected int64, reason string) ([]byte, error) {
	resp := plogotlp.NewExportResponse()
	if rejected > 0 {
		resp.PartialSuccess().SetRejectedLogRecords(rejected)
		resp.PartialSuccess().SetErrorMessage(reason)
	}
	if enc == OTLPJSON {
		return resp.MarshalJSON()
	}
	return resp.MarshalProto()
}

// OTLPError encodes the answer to a refused request: a google.rpc.Status
// with code INVALID_ARGUMENT and message, in the request's encoding
// ({"code": 3, "message": "..."} in JSON), as the OTLP specification asks.
func OTLPError(enc OTLPEncoding, message string) []byte {
	const invalidArgument = 3 // google.rpc.Code INVALID_ARGUMENT
	if enc == OTLPJSON {
		// As encoding/json's Encoder writes it, the way every other JSON
		// error of the server is written.
		b, _ := json.Marshal(map[string]any{"code": invalidArgument, "message": message}) // a map of an int and a string always encodes
		return append(b, '\n')
	}
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.VarintType)
	b = protowire.AppendVarint(b, invalidArgument)
	b = protowire.AppendTag(b, 2, protowire.BytesType)
	return protowire.AppendString(b, message)
}

// OTLPContentType is the Content-Type of an answer in enc.
func OTLPContentType(enc OTLPEncoding) string {
	if enc == OTLPJSON {
		return "application/json"
	}
	return "application/x-protobuf"
}
