package main

import (
	"context"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"launchwatch/internal/auditchain"
	"launchwatch/internal/client"
)

// runAudit implements `launchwatch audit verify`: the audit log's hash
// chain, read through the API (an admin token) and computed again here, so
// a row changed behind the server's back — by the tables' owner or a
// superuser, who can get round the append-only trigger — is found.
func runAudit(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "verify":
			return runAuditVerify(ctx, args[1:], stdout, stderr)
		case "-h", "-help", "--help", "help":
			auditUsage(stdout)
			return exitOK
		}
	}
	auditUsage(stderr)
	return 2
}

func auditUsage(w io.Writer) {
	fmt.Fprint(w, `Usage: launchwatch audit verify [--url URL] [--token TOKEN] [--anchor SEQ:HASH]

verify  reads the audit log's hash chain (GET /api/v1/audit/chain, an admin
        token) and computes every row's hash again from the row before it
        and its content. It names the first row that was changed, deleted
        or is out of place and exits 1; a sound log prints its row count and
        head (keep it: --anchor checks a later log still has it) and exits 0.
        It exits 4 when the server cannot be reached or refuses the token.
`)
}

func runAuditVerify(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("audit verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	srv := addServerFlags(fs)
	anchor := fs.String("anchor", "", "`SEQ:HASH` printed by an earlier verify: the row at SEQ must still have HASH (a log rewritten and hashed again from there on is caught)")
	fs.Usage = func() { auditUsage(stderr); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "audit verify: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	v := auditchain.NewVerifier()
	if *anchor != "" {
		seq, hash, err := parseAnchor(*anchor)
		if err != nil {
			fmt.Fprintln(stderr, "audit verify: --anchor:", err)
			return 2
		}
		v.Anchor.Seq, v.Anchor.Hash = seq, hash
	}
	c, err := srv.client()
	if err != nil {
		fmt.Fprintln(stderr, "audit verify:", err)
		return 2
	}
	head, err := verifyChain(ctx, c, v)
	var broken *auditchain.BrokenError
	switch {
	case errors.As(err, &broken):
		fmt.Fprintln(stdout, broken.Error())
		fmt.Fprintf(stdout, "rows 1 to %d are sound\n", v.Rows())
		return exitFailed
	case err != nil:
		fmt.Fprintln(stderr, "audit verify:", err)
		return exitUnreachable
	}
	fmt.Fprintf(stdout, "the audit log is sound: %d rows, head %d:%s\n", head.Head.Seq, head.Head.Seq, head.Head.Hash)
	return exitOK
}

// verifyChain reads the chain from its first row to the head the server
// reports first (rows chained meanwhile are for the next verify) and
// checks it with v.
func verifyChain(ctx context.Context, c *client.Client, v *auditchain.Verifier) (client.AuditChainPage, error) {
	var first client.AuditChainPage
	var after, through int64
	for {
		p, err := c.AuditChain(ctx, after, through)
		if err != nil {
			return first, err
		}
		if through == 0 {
			first, through = p, p.Head.Seq
		}
		for _, r := range p.Rows {
			hash, err := hex.DecodeString(r.Hash)
			if err != nil {
				return first, fmt.Errorf("row %d: the server sent a hash that is not hex: %q", r.Seq, r.Hash)
			}
			row := auditchain.Row{Seq: r.Seq, ID: r.ID, AtMicro: r.AtMicro, Actor: r.Actor, Action: r.Action, Subject: r.Subject, Detail: r.Detail}
			if err := v.Check(row, hash); err != nil {
				return first, err
			}
			after = r.Seq
		}
		if len(p.Rows) == 0 || after >= through {
			break
		}
	}
	headHash, err := hex.DecodeString(first.Head.Hash)
	if err != nil {
		return first, fmt.Errorf("the server sent a head hash that is not hex: %q", first.Head.Hash)
	}
	return first, v.End(first.Head.Seq, headHash)
}

func parseAnchor(s string) (int64, []byte, error) {
	seqText, hashText, ok := strings.Cut(s, ":")
	seq, err := strconv.ParseInt(seqText, 10, 64)
	if !ok || err != nil || seq < 1 {
		return 0, nil, fmt.Errorf("want SEQ:HASH as verify prints it, got %q", s)
	}
	hash, err := hex.DecodeString(hashText)
	if err != nil || len(hash) != 32 {
		return 0, nil, fmt.Errorf("want a SHA-256 in hex after %d:, got %q", seq, hashText)
	}
	return seq, hash, nil
}
