# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""Run modules of rdma-core's test suite (tests/test_NAME.py), each in its
own process, for `make peer-test` (run.sh runs this once per stack).

    python3 driver.py TESTS_DIR DEV GID OUTDIR TIMEOUT test_NAME...

This process imports what every module shares once (unittest, pyverbs, the
suite's base and utils: most of a module's start-up under emulation), then
forks one child per module; a child that crashes, or runs past TIMEOUT
seconds and is killed with its process group, costs only that module's
unfinished tests.

The suite's own run_tests.py imports every module of the suite (its
tests/__init__.py) in each process: here the package `tests` is an empty
one over TESTS_DIR, so a child loads only its module. The suite's
args_parser gets --dev/--gid as run_tests.py would pass them.

Every test's random choices (QP caps, masks, PSNs) are seeded from the
test's id alone, right before it runs: both stacks see the same values even
when an earlier test failed on one of them after fewer draws.

OUTDIR/test_NAME gets one line per test, flushed at once so that a crash or
a timeout keeps what was already known:
    list ID          the module holds test ID (written before any runs)
    result ID WHAT   WHAT: pass, fail, error or skip
OUTDIR/test_NAME.log the module's unittest output (verbose). On stdout, once
a module is over: its lines, then
    module test_NAME STATUS SECONDS
STATUS as a shell's: the exit code, 128 + signal, 124 for a timeout.
"""
import faulthandler
import os
import random
import re
import signal
import sys
import time
import traceback
import types
import unittest

SEED = 'ib_async-peer-1'
# worst first: a test whose subtests fail and skip has failed
RANK = {'error': 0, 'fail': 1, 'skip': 2, 'pass': 3}


class PeerResult(unittest.TextTestResult):
    """unittest's verbose result, also writing one line per test to out."""
    out = None
    listed = []

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.what = {}

    def write(self, tid, what):
        self.out.write('result %s %s\n' % (tid, what))
        self.out.flush()

    def note(self, test, what):
        if not isinstance(test, unittest.TestCase):
            self.fixture(test, what)
            return
        tid = test.id()
        if tid not in self.what or RANK[what] < RANK[self.what[tid]]:
            self.what[tid] = what

    def fixture(self, holder, what):
        """A skip or error in setUpClass or setUpModule is reported on a
        stand-in, and the tests it covers never start: they get its result."""
        m = re.match(r'(setUpClass|setUpModule) \((.+)\)$',
                     getattr(holder, 'description', ''))
        if m:
            for tid in self.listed:
                if tid.startswith(m.group(2) + '.'):
                    self.write(tid, what)

    def startTest(self, test):
        random.seed('%s:%s' % (SEED, test.id()))
        super().startTest(test)

    def stopTest(self, test):
        super().stopTest(test)
        self.write(test.id(), self.what.pop(test.id(), 'error'))

    def addSuccess(self, test):
        super().addSuccess(test)
        self.note(test, 'pass')

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.note(test, 'fail')

    def addError(self, test, err):
        super().addError(test, err)
        self.note(test, 'error')

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.note(test, 'skip')

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self.note(test, 'pass')

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self.note(test, 'fail')

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            failed = issubclass(err[0], test.failureException)
            self.note(test, 'fail' if failed else 'error')


def tests_of(suite):
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from tests_of(t)
        else:
            yield t


def run_module(module, results):
    """In the child: one module, its output to results and results.log."""
    log = os.open(results + '.log', os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(log, 1)
    os.dup2(log, 2)
    faulthandler.enable()
    random.seed('%s:%s' % (SEED, module))
    suite = unittest.defaultTestLoader.loadTestsFromName('tests.' + module)
    with open(results, 'w', encoding='utf-8') as out:
        PeerResult.listed = [t.id() for t in tests_of(suite)]
        for tid in PeerResult.listed:
            out.write('list %s\n' % tid)
        out.flush()
        PeerResult.out = out
        unittest.TextTestRunner(verbosity=2, resultclass=PeerResult).run(suite)


def wait(pid, timeout):
    """The child's status as a shell would give it; 124 once killed for
    running past timeout seconds (with whatever it forked)."""
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            code = os.waitstatus_to_exitcode(status)
            return code if code >= 0 else 128 - code
        if time.monotonic() > deadline:
            os.killpg(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return 124
        time.sleep(0.05)


def main():
    tests_dir, dev, gid, outdir, timeout = sys.argv[1:6]
    sys.path.insert(0, tests_dir)
    pkg = types.ModuleType('tests')
    pkg.__path__ = [tests_dir]
    sys.modules['tests'] = pkg
    from args_parser import parser
    modules = sys.argv[6:]
    sys.argv[1:] = ['--dev', dev, '--gid', gid]
    parser.parse_args()
    # pylint: disable=import-outside-toplevel,unused-import
    import tests.base
    import tests.utils
    for module in modules:
        results = os.path.join(outdir, module)
        start = time.monotonic()
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            os.setpgid(0, 0)
            code = 0
            try:
                run_module(module, results)
            except BaseException:   # anything, even SystemExit: reported
                traceback.print_exc()
                code = 1
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
        try:    # as the child does: whichever runs first, killpg finds it
            os.setpgid(pid, pid)
        except OSError:
            pass
        status = wait(pid, float(timeout))
        if os.path.exists(results):
            with open(results, encoding='utf-8') as f:
                sys.stdout.write(f.read())
        print('module %s %d %.1f' % (module, status,
                                     time.monotonic() - start), flush=True)


if __name__ == '__main__':
    main()
