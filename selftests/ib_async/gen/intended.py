# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""Intended differences between ib_uverbs (rdma-core) and ib_async (the shim).

compare.py removes from the ib_uverbs trace every line that matches an
entry's `uverbs` pattern and from the ib_async trace every line matching
its `ibasync` pattern, then diffs what is left.  Each entry says why the difference is by design; each is
documented in Documentation/man/libibasync.7 and in the "Differential
testing" section of Documentation/ib_async.rst.  gen.py keeps the calls
that cause them self-contained (a temporary object created and destroyed
in one statement), so the rest of the trace stays comparable.
"""
import re

INTENDED = (
    {
        "name": "mr-access-mw-bind",
        "why": "IBV_ACCESS_MW_BIND: where the node registers MRs itself "
               "(USER_MR, the kernel's REG_MR) it is accepted and has no "
               "effect, as ib_uverbs' checks say; where the shim keeps the "
               "MR in userspace it fails with EOPNOTSUPP, as access flags "
               "beyond local/remote read/write/atomic do (no memory "
               "windows, libibasync(7), Unsupported). Either is by design, "
               "so both are filtered",
        "uverbs": r"ibv_reg_mr\(tmp pd\d+ access=0x11\) = ok|"
                  r"ibv_dereg_mr\(tmp\) = 0",
        "ibasync": r"ibv_reg_mr\(tmp pd\d+ access=0x11\) = "
                   r"(?:NULL EOPNOTSUPP|ok)|ibv_dereg_mr\(tmp\) = 0",
    },
    {
        "name": "alloc-mw",
        "why": "ibv_alloc_mw() makes a memory window on rxe through "
               "ib_uverbs and fails over the shim with NULL, errno "
               "EOPNOTSUPP: a module has no kernel verbs for memory "
               "windows (libibasync(7), Unsupported); ops_mw() deallocates "
               "what it got at once",
        "uverbs": r"ibv_alloc_mw\(tmp pd\d+\) = ok|"
                  r"ibv_dealloc_mw\(tmp\) = 0",
        "ibasync": r"ibv_alloc_mw\(tmp pd\d+\) = NULL EOPNOTSUPP",
    },
)


# Not filtered but avoided by gen.py (comparing them would test provider
# timing, not the shim):
AVOIDED = {
    "post-recv-to-err-qp": "a receive posted to a QP in ERR is flushed at "
        "once by the kernel's rxe (the shim posts through the kernel) but "
        "only at the next kernel entry by rdma-core's librxe, which just "
        "writes its ring; a QP (or SRQ) whose posted receive's MR was "
        "deregistered counts as possibly in ERR, since the next message "
        "that lands in that receive fails it, and gets no more receives "
        "or messages",
    "rdma-write-on-ud": "a one-sided operation on a UD QP is refused at "
        "post by the kernel's rxe for the shim's kernel QP (EINVAL), while "
        "rdma-core's librxe accepts it and fails it in a completion that "
        "moves the QP to ERR, so the rest of the trace differs; one-sided "
        "operations are drawn on RC pairs only",
    "rc-send-without-receive": "RNR retries make the outcome a matter of "
        "timing on both stacks",
    "cq-overrun-by-traffic": "which completions an overrun CQ loses depends "
        "on when each stack polls, and how many CQ_ERR events it raises on "
        "how many completions each rxe attempts (a kernel QP's destroy "
        "flushes its receives into the CQ): QPs use CQs of at least "
        "QP_CQ_MIN entries and the overrun scenario destroys its QP and CQ",
}
