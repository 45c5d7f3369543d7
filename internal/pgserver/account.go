package pgserver

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
)

// serverUser is the account PostgreSQL runs as when this process is root. Debian's postgresql
// package creates it.
const serverUser = "postgres"

// account is the OS user that runs initdb and postgres.
type account struct {
	name   string
	uid    int
	gid    int
	groups []int // supplementary groups, for the traversal check and the child's credentials
	// switchTo is true when we are root and must drop to this account for every child process.
	switchTo bool
}

// serverAccount picks the account for PostgreSQL: the current user, or serverUser when we are root,
// because postgres and initdb refuse to run as root.
func serverAccount() (account, error) {
	if os.Geteuid() != 0 {
		groups, _ := os.Getgroups()
		name := strconv.Itoa(os.Geteuid())
		if u, err := user.Current(); err == nil {
			name = u.Username
		}
		return account{name: name, uid: os.Geteuid(), gid: os.Getegid(), groups: groups}, nil
	}
	u, err := user.Lookup(serverUser)
	if err != nil {
		return account{}, fmt.Errorf("pgserver: running as root needs the unprivileged %q user "+
			"(apt-get install postgresql creates it): %w", serverUser, err)
	}
	a := account{name: u.Username, switchTo: true}
	if a.uid, err = strconv.Atoi(u.Uid); err != nil {
		return account{}, fmt.Errorf("pgserver: user %s: uid %q: %w", serverUser, u.Uid, err)
	}
	if a.gid, err = strconv.Atoi(u.Gid); err != nil {
		return account{}, fmt.Errorf("pgserver: user %s: gid %q: %w", serverUser, u.Gid, err)
	}
	gids, _ := u.GroupIds() // without supplementary groups the primary group still works
	for _, g := range gids {
		if n, err := strconv.Atoi(g); err == nil {
			a.groups = append(a.groups, n)
		}
	}
	return a, nil
}

// sysProcAttr returns the attributes for a child that runs as a. Setpgid keeps children out of the
// terminal's process group, so Ctrl-C reaches only our process, which then stops postgres after
// draining its own work.
func (a account) sysProcAttr() *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setpgid: true}
	if a.switchTo {
		groups := make([]uint32, len(a.groups))
		for i, g := range a.groups {
			groups[i] = uint32(g)
		}
		attr.Credential = &syscall.Credential{Uid: uint32(a.uid), Gid: uint32(a.gid), Groups: groups}
	}
	return attr
}

// chown gives path to a when we are switching users; otherwise the files are already ours.
func (a account) chown(path string) error {
	if !a.switchTo {
		return nil
	}
	if err := os.Lchown(path, a.uid, a.gid); err != nil {
		return fmt.Errorf("pgserver: chown %s to %s: %w", path, a.name, err)
	}
	return nil
}

// canTraverse reports whether a may search every directory from / down to dir (inclusive), using
// the permission bits the kernel would check (ACLs are ignored). It names the first directory that
// blocks the way.
func (a account) canTraverse(dir string) (blocker string, ok bool) {
	dir = filepath.Clean(dir)
	var chain []string
	for p := dir; ; p = filepath.Dir(p) {
		chain = append(chain, p)
		if p == filepath.Dir(p) {
			break
		}
	}
	slices.Reverse(chain)
	for _, p := range chain {
		fi, err := os.Stat(p)
		if err != nil {
			return p, false
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return p, false
		}
		if !a.mayExec(fi.Mode().Perm(), int(st.Uid), int(st.Gid)) {
			return p, false
		}
	}
	return "", true
}

func (a account) mayExec(perm os.FileMode, uid, gid int) bool {
	switch {
	case a.uid == 0:
		return true
	case uid == a.uid:
		return perm&0o100 != 0
	case gid == a.gid || slices.Contains(a.groups, gid):
		return perm&0o010 != 0
	default:
		return perm&0o001 != 0
	}
}
