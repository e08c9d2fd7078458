# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""The verbs the libibasync shim implements, as data.

One VerbCall per call: its C signature as <infiniband/verbs.h> spells it
(test_verbs.py checks that), its parameters with valid ranges and the
invalid values worth trying, the resources it needs, makes or ends, the
state change it causes and its contract.  gen.py draws programs from this
table and checks its own choices against `requires`; the contract fields
are what a trace checker can assert (return convention, errno values).

Resource names: ctx, pd, mr, cq, qp, srq, ah, wq, devlist, event, channel
(a completion channel), cq_event (a completion event not yet acked), and
the objects only some devices make (none on rxe but mw): td, xrcd, dm,
flow, flow_action, counters, rwq_ind_table, mw.
QP states are the IBV_QPS_* suffixes.
"""
import os
import re
from dataclasses import dataclass, field

# Return conventions ("ret" in a contract).
PTR_OR_NULL_ERRNO = "pointer; NULL with errno set"
ZERO_OR_ERRNO = "0; else an errno value returned (errno not relied on)"
ZERO_OR_MINUS1_ERRNO = "0; else -1 with errno set"
NONNEG_OR_MINUS1 = "count >= 0; else a negative value"
VOID = "void"
CONST = "pure function of its arguments"

# Outcomes on rxe (the "outcome" of a VerbCall of the "inline" group:
# ib_uverbs first, then the shim), as ib_async_inline_verbs.c measured on
# rdma-core 44 and 6.1.  libibverbs installs a default for every op a
# provider leaves out, and so does the shim (user/src/default_ops.c): an
# int op returns EOPNOTSUPP and leaves errno alone, an op that makes an
# object returns NULL with errno EOPNOTSUPP.
WORKS = "works"
OP_EOPNOTSUPP = "EOPNOTSUPP returned, errno untouched (default op)"
NULL_EOPNOTSUPP = "NULL, errno EOPNOTSUPP (default op)"
BOTH_EOPNOTSUPP = (OP_EOPNOTSUPP, OP_EOPNOTSUPP)
BOTH_NULL = (NULL_EOPNOTSUPP, NULL_EOPNOTSUPP)
BOTH_WORK = (WORKS, WORKS)


@dataclass(frozen=True)
class Param:
    name: str
    ctype: str
    valid: str                      # the valid range, in words or as a range
    invalid: tuple = ()             # interesting invalid values
    nullable: bool = False


@dataclass(frozen=True)
class VerbCall:
    name: str
    ret: str                        # C return type as the header spells it
    params: tuple                   # of Param
    group: str
    requires: tuple = ()            # resources (and states) that must exist
    produces: tuple = ()
    destroys: tuple = ()
    transition: str = ""            # the state change, if any
    contract: dict = field(default_factory=dict)
    header: str = ""                # the header's function a call reaches
    symbols: tuple = ()             # symbols the shim exports for it
    # (on ib_uverbs + rdma-core's rxe, over the shim): how the call ends
    # with valid objects of rxe0; set for the "inline" group
    outcome: tuple = ()

    @property
    def c_name(self):
        return self.header or self.name

    def signature(self):
        args = ", ".join(p.ctype + ("" if p.ctype.endswith("*") else " ")
                         + p.name for p in self.params)
        sep = "" if self.ret.endswith("*") else " "
        return f"{self.ret}{sep}{self.name}({args or 'void'})"


P = Param
CTX = P("context", "struct ibv_context *", "an open context")
PORT8 = P("port_num", "uint8_t", "1..phys_port_cnt", (0, 2, 255))
CQX = P("cq", "struct ibv_cq_ex *", "a CQ from ibv_create_cq_ex")
QPX = P("qp", "struct ibv_qp_ex *", "ibv_qp_to_qp_ex() of a QP created "
        "with send_ops_flags")
RKEY = P("rkey", "uint32_t", "the remote MR's rkey", ("a stale rkey",))
RADDR = P("remote_addr", "uint64_t", "within the remote MR")

QP_STATES = ("RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR")
# Transitions rdma-core's ibv_modify_qp(3) and the IB spec allow, with the
# attribute mask each needs per transport (besides IBV_QP_STATE).
QP_TRANSITIONS = {
    ("RESET", "INIT"): {"RC": ("PKEY_INDEX", "PORT", "ACCESS_FLAGS"),
                        "UD": ("PKEY_INDEX", "PORT", "QKEY")},
    ("INIT", "INIT"): {"RC": (), "UD": ()},
    ("INIT", "RTR"): {"RC": ("AV", "PATH_MTU", "DEST_QPN", "RQ_PSN",
                             "MAX_DEST_RD_ATOMIC", "MIN_RNR_TIMER"),
                      "UD": ()},
    ("RTR", "RTS"): {"RC": ("SQ_PSN", "TIMEOUT", "RETRY_CNT", "RNR_RETRY",
                            "MAX_QP_RD_ATOMIC"),
                     "UD": ("SQ_PSN",)},
    ("RTS", "RTS"): {"RC": (), "UD": ()},
    ("RTS", "SQD"): {"RC": (), "UD": ()},
    ("SQD", "RTS"): {"RC": (), "UD": ()},
    ("SQE", "RTS"): {"RC": (), "UD": ()},
}
# Any state may go to RESET or ERR with IBV_QP_STATE alone.
QP_ANY_TO = ("RESET", "ERR")

# Async events: enum value, name, which member of event.element is valid.
# The rows of IB_ASYNC_IBV_EVENT_TYPES in include/ib_async_event_types.h,
# the tree's one list of event type names (in the order of the values).
EVENT_TYPES_H = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                             "..", "..", "..", "include",
                             "ib_async_event_types.h")


def _event_rows(path, macro):
    """The type(name, element) rows of #define MACRO(type) in the header."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    start = text.index("#define %s(type)" % macro)
    body = []
    for line in text[start:].splitlines():
        body.append(line)
        if not line.rstrip().endswith("\\"):
            break
    return re.findall(r"\btype\((\w+), (\w+)\)", "\n".join(body))


EVENTS = tuple((value, name, member) for value, (name, member) in
               enumerate(_event_rows(EVENT_TYPES_H,
                                     "IB_ASYNC_IBV_EVENT_TYPES")))
# The events rxe 6.1 really raises and how the generator causes them
# (REFERENCE.md 2); link events (PORT_*, GID_CHANGE) are never caused.
EVENT_TRIGGERS = {
    "CQ_ERR": "recv CQ with cqe 1, >= 2 receives posted, QP to ERR",
    "SQ_DRAINED": "QP in RTS modified to SQD",
    "SRQ_LIMIT_REACHED": "SRQ armed with limit L, a message consumes a "
                         "receive so that fewer than L remain",
}

V = VerbCall
VERBS = (
    # ---- devices -----------------------------------------------------
    V("ibv_get_device_list", "struct ibv_device **",
      (P("num_devices", "int *", "NULL or a valid int", nullable=True),),
      "device", produces=("devlist",),
      contract={"ret": PTR_OR_NULL_ERRNO,
                "errno": ("ENOSYS", "ENOMEM"),
                "note": "NULL-terminated; fresh structures each call"},
      header="__ibv_get_device_list"),
    V("ibv_free_device_list", "void",
      (P("list", "struct ibv_device **", "a list not yet freed"),),
      "device", requires=("devlist",), destroys=("devlist",),
      contract={"ret": VOID,
                "note": "devices of open contexts stay valid"}),
    V("ibv_get_device_name", "const char *",
      (P("device", "struct ibv_device *", "a listed device"),),
      "device", requires=("devlist",),
      contract={"ret": "the RDMA device name, e.g. rxe0"}),
    V("ibv_get_device_guid", "__be64",
      (P("device", "struct ibv_device *", "a listed device"),),
      "device", requires=("devlist",),
      contract={"ret": "node GUID, network order"}),
    V("ibv_get_device_index", "int",
      (P("device", "struct ibv_device *", "a listed device"),),
      "device", requires=("devlist",),
      contract={"ret": "kernel index >= 0, or -1"}),
    V("ibv_open_device", "struct ibv_context *",
      (P("device", "struct ibv_device *", "a listed device"),),
      "device", requires=("devlist",), produces=("ctx",),
      contract={"ret": PTR_OR_NULL_ERRNO, "errno": ("ENODEV", "EINVAL")}),
    V("ibv_close_device", "int", (CTX,), "device",
      requires=("ctx",), destroys=("ctx",),
      contract={"ret": ZERO_OR_MINUS1_ERRNO,
                "note": "destroys every object still in the context"}),
    # ---- async events ------------------------------------------------
    V("ibv_get_async_event", "int",
      (CTX, P("event", "struct ibv_async_event *", "writable")),
      "event", requires=("ctx",), produces=("event",),
      contract={
          "ret": ZERO_OR_MINUS1_ERRNO,
          "errno": ("EAGAIN", "EINTR", "ENODEV", "EIO"),
          "blocking": "blocks until an event unless async_fd is "
                      "O_NONBLOCK; then -1 with EAGAIN when none is queued",
          "element": {name: member for _, name, member in EVENTS},
          "ack": "each returned event is acked exactly once with "
                 "ibv_ack_async_event(), passing the struct unchanged",
          "destroy": "ibv_destroy_cq/qp/srq/wq of the element blocks until "
                     "every event returned for it was acked",
          "concurrency": "one event goes to exactly one of several "
                         "concurrent callers on one context",
      }),
    V("ibv_ack_async_event", "void",
      (P("event", "struct ibv_async_event *",
         "an event returned by ibv_get_async_event, unchanged, not acked",
         ("twice", "modified element")),),
      "event", requires=("event",), destroys=("event",),
      contract={"ret": VOID,
                "note": "counts on element's mutex/cond/events_completed "
                        "(async_events_completed for a CQ)"}),
    V("ibv_event_type_str", "const char *",
      (P("event", "enum ibv_event_type", "0..19", (20, -1)),), "string",
      contract={"ret": CONST, "invalid": "\"unknown\""}),
    V("ibv_wc_status_str", "const char *",
      (P("status", "enum ibv_wc_status", "0..21", (22, -1)),), "string",
      contract={"ret": CONST, "invalid": "\"unknown\""}),
    V("ibv_port_state_str", "const char *",
      (P("port_state", "enum ibv_port_state", "0..5", (6,)),), "string",
      contract={"ret": CONST, "invalid": "\"unknown\""}),
    V("ibv_node_type_str", "const char *",
      (P("node_type", "enum ibv_node_type", "-1..6", (7,)),), "string",
      contract={"ret": CONST, "invalid": "\"unknown\""}),
    # ---- queries -----------------------------------------------------
    V("ibv_query_device", "int",
      (CTX, P("device_attr", "struct ibv_device_attr *", "writable")),
      "query", requires=("ctx",),
      contract={"ret": ZERO_OR_ERRNO,
                "note": "max_sge is min(send, recv) as ib_uverbs says"}),
    V("ibv_query_port", "int",
      (CTX, PORT8, P("port_attr", "struct ibv_port_attr *", "writable")),
      "query", requires=("ctx",), header="___ibv_query_port",
      contract={"ret": ZERO_OR_ERRNO, "errno": ("EINVAL",)}),
    V("ibv_query_gid", "int",
      (CTX, PORT8, P("index", "int", "0..gid_tbl_len-1", (-1, 4096)),
       P("gid", "union ibv_gid *", "writable")),
      "query", requires=("ctx",),
      contract={"ret": ZERO_OR_MINUS1_ERRNO,
                "note": "an empty slot reads as the zero GID"}),
    V("ibv_query_gid_ex", "int",
      (CTX, P("port_num", "uint32_t", "1..phys_port_cnt", (0, 2)),
       P("gid_index", "uint32_t", "0..gid_tbl_len-1", (4096,)),
       P("entry", "struct ibv_gid_entry *", "writable"),
       P("flags", "uint32_t", "0", (1,))),
      "query", requires=("ctx",), symbols=("_ibv_query_gid_ex",),
      contract={"ret": ZERO_OR_ERRNO, "errno": ("ENODATA", "EINVAL")}),
    V("ibv_query_gid_table", "ssize_t",
      (CTX, P("entries", "struct ibv_gid_entry *", "max_entries long"),
       P("max_entries", "size_t", ">= valid GIDs", (0,)),
       P("flags", "uint32_t", "0", (1,))),
      "query", requires=("ctx",), symbols=("_ibv_query_gid_table",),
      contract={"ret": NONNEG_OR_MINUS1, "errno": ("EINVAL",)}),
    V("ibv_query_pkey", "int",
      (CTX, PORT8, P("index", "int", "0..pkey_tbl_len-1", (-1, 65536)),
       P("pkey", "__be16 *", "writable")),
      "query", requires=("ctx",), contract={"ret": ZERO_OR_MINUS1_ERRNO}),
    V("ibv_get_pkey_index", "int",
      (CTX, PORT8, P("pkey", "__be16", "a P_Key in the table", (0,))),
      "query", requires=("ctx",),
      contract={"ret": "index >= 0; else -1 with errno set"}),
    # ---- PD, MR ------------------------------------------------------
    V("ibv_alloc_pd", "struct ibv_pd *", (CTX,), "pd",
      requires=("ctx",), produces=("pd",),
      contract={"ret": PTR_OR_NULL_ERRNO}),
    V("ibv_dealloc_pd", "int", (P("pd", "struct ibv_pd *", "a live PD"),),
      "pd", requires=("pd",), destroys=("pd",),
      contract={"ret": ZERO_OR_ERRNO,
                "errno": ("EBUSY",), "busy": "PD with QP, SRQ, AH or MR"}),
    V("ibv_reg_mr", "struct ibv_mr *",
      (P("pd", "struct ibv_pd *", "a live PD"),
       P("addr", "void *", "mapped memory"),
       P("length", "size_t", "1..max_mr_size", (0,)),
       P("access", "int", "IBV_ACCESS_LOCAL_WRITE|REMOTE_*|MW_BIND",
         (0x100000,))),
      "mr", requires=("pd",), produces=("mr",),
      contract={"ret": PTR_OR_NULL_ERRNO, "errno": ("EINVAL", "EOPNOTSUPP")}),
    V("ibv_reg_mr_iova", "struct ibv_mr *",
      (P("pd", "struct ibv_pd *", "a live PD"), P("addr", "void *", "mapped"),
       P("length", "size_t", "1.."), P("iova", "uint64_t", "any"),
       P("access", "int", "as ibv_reg_mr")),
      "mr", requires=("pd",), produces=("mr",),
      contract={"ret": PTR_OR_NULL_ERRNO}),
    V("ibv_reg_mr_iova2", "struct ibv_mr *",
      (P("pd", "struct ibv_pd *", "a live PD"), P("addr", "void *", "mapped"),
       P("length", "size_t", "1.."), P("iova", "uint64_t", "any"),
       P("access", "unsigned int", "as ibv_reg_mr")),
      "mr", requires=("pd",), produces=("mr",),
      contract={"ret": PTR_OR_NULL_ERRNO}),
    V("ibv_dereg_mr", "int", (P("mr", "struct ibv_mr *", "a live MR"),),
      "mr", requires=("mr",), destroys=("mr",),
      contract={"ret": ZERO_OR_ERRNO}),
    # ---- CQ ----------------------------------------------------------
    V("ibv_create_cq", "struct ibv_cq *",
      (CTX, P("cqe", "int", "1..max_cqe", (0, -1, 1 << 30)),
       P("cq_context", "void *", "any", nullable=True),
       P("channel", "struct ibv_comp_channel *",
         "NULL or a channel of the same context",
         ("a channel of another context",), nullable=True),
       P("comp_vector", "int", "0..num_comp_vectors-1", (-1, 1000))),
      "cq", requires=("ctx",), produces=("cq",),
      contract={"ret": PTR_OR_NULL_ERRNO, "errno": ("EINVAL", "ENOMEM")}),
    V("ibv_resize_cq", "int",
      (P("cq", "struct ibv_cq *", "a live CQ"),
       P("cqe", "int", ">= outstanding entries, <= max_cqe", (0, -1))),
      "cq", requires=("cq",),
      contract={"ret": ZERO_OR_ERRNO, "errno": ("EINVAL", "EOPNOTSUPP")}),
    V("ibv_destroy_cq", "int", (P("cq", "struct ibv_cq *", "a live CQ"),),
      "cq", requires=("cq",), destroys=("cq",),
      contract={"ret": ZERO_OR_ERRNO, "errno": ("EBUSY",),
                "busy": "CQ of a QP or WQ",
                "blocks": "until its returned async events and completion "
                          "events are acked",
                "purges": "its completion events not yet returned"}),
    # ---- completion channels -----------------------------------------
    V("ibv_create_comp_channel", "struct ibv_comp_channel *", (CTX,),
      "channel", requires=("ctx",), produces=("channel",),
      contract={"ret": PTR_OR_NULL_ERRNO, "errno": ("ENOMEM", "EMFILE"),
                "note": "fd is pollable, blocking until the program sets "
                        "O_NONBLOCK, close-on-exec"}),
    V("ibv_destroy_comp_channel", "int",
      (P("channel", "struct ibv_comp_channel *", "a channel no CQ uses",
         ("a channel with CQs",)),),
      "channel", requires=("channel",), destroys=("channel",),
      contract={"ret": ZERO_OR_ERRNO, "errno": ("EBUSY",),
                "busy": "channel of a live CQ (refcnt > 0)"}),
    V("ibv_req_notify_cq", "int",
      (P("cq", "struct ibv_cq *", "a live CQ"),
       P("solicited_only", "int", "0 (next completion) or 1 (next "
         "solicited or failed one)")),
      "datapath", requires=("cq",), transition="arms the CQ (one-shot)",
      contract={"ret": ZERO_OR_ERRNO,
                "events": "one completion event on the CQ's channel for "
                          "the next matching completion; arming again "
                          "before it changes nothing"}),
    V("ibv_get_cq_event", "int",
      (P("channel", "struct ibv_comp_channel *", "a live channel"),
       P("cq", "struct ibv_cq **", "writable"),
       P("cq_context", "void **", "writable")),
      "channel", requires=("channel",), produces=("cq_event",),
      contract={"ret": ZERO_OR_MINUS1_ERRNO,
                "errno": ("EAGAIN", "EINTR", "EIO", "ENODEV"),
                "blocking": "blocks until an event unless channel->fd is "
                            "O_NONBLOCK; then -1 with EAGAIN",
                "element": "*cq is the armed CQ, *cq_context its "
                           "cq_context at creation",
                "ack": "each returned event is acked with "
                       "ibv_ack_cq_events() (counts may be summed)",
                "end": "context closed: EIO; device removed: ENODEV",
                "concurrency": "one event goes to exactly one of several "
                               "concurrent callers"}),
    V("ibv_ack_cq_events", "void",
      (P("cq", "struct ibv_cq *", "a CQ with unacked completion events"),
       P("nevents", "unsigned int", "at most the unacked events")),
      "channel", requires=("cq_event",), destroys=("cq_event",),
      contract={"ret": VOID,
                "note": "adds to cq->comp_events_completed under cq->mutex "
                        "and signals cq->cond"}),
    V("ibv_poll_cq", "int",
      (P("cq", "struct ibv_cq *", "a live CQ"),
       P("num_entries", "int", "1..", (0, -1)),
       P("wc", "struct ibv_wc *", "num_entries long")),
      "datapath", requires=("cq",),
      contract={"ret": "entries polled >= 0; < 0 on error",
                "order": "per QP and queue, in posting order"}),
    # ---- SRQ ---------------------------------------------------------
    V("ibv_create_srq", "struct ibv_srq *",
      (P("pd", "struct ibv_pd *", "a live PD"),
       P("srq_init_attr", "struct ibv_srq_init_attr *",
         "max_wr 1..max_srq_wr, max_sge 1..max_srq_sge, srq_limit 0",
         ("max_wr 0", "max_wr > max_srq_wr"))),
      "srq", requires=("pd",), produces=("srq",),
      contract={"ret": PTR_OR_NULL_ERRNO, "errno": ("EINVAL",)}),
    V("ibv_modify_srq", "int",
      (P("srq", "struct ibv_srq *", "a live SRQ"),
       P("srq_attr", "struct ibv_srq_attr *", "srq_limit < max_wr"),
       P("srq_attr_mask", "int", "IBV_SRQ_LIMIT | IBV_SRQ_MAX_WR", (0x80,))),
      "srq", requires=("srq",), transition="arms the limit (one-shot)",
      contract={"ret": ZERO_OR_ERRNO, "errno": ("EINVAL", "EOPNOTSUPP")}),
    V("ibv_query_srq", "int",
      (P("srq", "struct ibv_srq *", "a live SRQ"),
       P("srq_attr", "struct ibv_srq_attr *", "writable")),
      "srq", requires=("srq",), contract={"ret": ZERO_OR_ERRNO}),
    V("ibv_destroy_srq", "int", (P("srq", "struct ibv_srq *", "live SRQ"),),
      "srq", requires=("srq",), destroys=("srq",),
      contract={"ret": ZERO_OR_ERRNO, "errno": ("EBUSY",),
                "busy": "SRQ of a QP",
                "blocks": "until its returned async events are acked"}),
    V("ibv_post_srq_recv", "int",
      (P("srq", "struct ibv_srq *", "a live SRQ"),
       P("recv_wr", "struct ibv_recv_wr *", "num_sge 1, lkey of an MR "
         "with LOCAL_WRITE", ("bad lkey", "num_sge 2")),
       P("bad_recv_wr", "struct ibv_recv_wr **", "writable")),
      "datapath", requires=("srq", "mr"),
      contract={"ret": ZERO_OR_ERRNO, "errno": ("EINVAL", "ENOMEM",
                                                "EOPNOTSUPP")}),
    # ---- QP ----------------------------------------------------------
    V("ibv_create_qp", "struct ibv_qp *",
      (P("pd", "struct ibv_pd *", "a live PD"),
       P("qp_init_attr", "struct ibv_qp_init_attr *",
         "qp_type RC|UC|UD (UC: shim on a node with USER_MR), send_cq/"
         "recv_cq live, srq optional, caps <= device",
         ("qp_type XRC_SEND (shim: EOPNOTSUPP)", "max_send_wr 0 with max_recv_wr 0",
          "max_send_wr > max_qp_wr"))),
      "qp", requires=("pd", "cq"), produces=("qp:RESET",),
      contract={"ret": PTR_OR_NULL_ERRNO,
                "errno": ("EINVAL", "EOPNOTSUPP", "ENOMEM")}),
    V("ibv_modify_qp", "int",
      (P("qp", "struct ibv_qp *", "a live QP"),
       P("attr", "struct ibv_qp_attr *", "qp_state and the fields the mask "
         "names"),
       P("attr_mask", "int", "QP_TRANSITIONS[(cur, new)][type] | STATE",
         ("a required bit missing", "a transition not in QP_TRANSITIONS"))),
      "qp", requires=("qp",),
      transition="qp: cur -> attr.qp_state when (cur, new) is in "
                 "QP_TRANSITIONS or new in QP_ANY_TO",
      contract={"ret": ZERO_OR_ERRNO, "errno": ("EINVAL", "EOPNOTSUPP"),
                "events": {"SQD": "SQ_DRAINED", "ERR": "CQ_ERR if the "
                           "flush overruns a CQ"}}),
    V("ibv_query_qp", "int",
      (P("qp", "struct ibv_qp *", "a live QP"),
       P("attr", "struct ibv_qp_attr *", "writable"),
       P("attr_mask", "int", "any IBV_QP_* bits"),
       P("init_attr", "struct ibv_qp_init_attr *", "writable")),
      "qp", requires=("qp",), contract={"ret": ZERO_OR_ERRNO}),
    V("ibv_destroy_qp", "int", (P("qp", "struct ibv_qp *", "a live QP"),),
      "qp", requires=("qp",), destroys=("qp",),
      contract={"ret": ZERO_OR_ERRNO,
                "blocks": "until its returned async events are acked",
                "note": "completions already queued stay pollable"}),
    V("ibv_post_send", "int",
      (P("qp", "struct ibv_qp *", "a QP in RTS (SQD: queued)"),
       P("wr", "struct ibv_send_wr *", "SEND/SEND_WITH_IMM (UD: ah, "
         "remote_qpn, remote_qkey); RC also RDMA_WRITE(_WITH_IMM) and "
         "RDMA_READ (remote_addr, rkey of a peer-PD MR with REMOTE_WRITE/"
         "READ), ATOMIC_CMP_AND_SWP/FETCH_AND_ADD (one 8-byte aligned sge, "
         "REMOTE_ATOMIC; READ and atomics need a LOCAL_WRITE lkey)",
         ("RDMA_WRITE on UD (shim: EINVAL at post; librxe: error "
          "completion, QP to ERR)", "LOCAL_INV, BIND_MW, TSO (shim: "
          "EOPNOTSUPP)", "INLINE on READ or an atomic (EINVAL)",
          "bad lkey", "QP not in RTS")),
       P("bad_wr", "struct ibv_send_wr **", "writable")),
      "datapath", requires=("qp:RTS", "mr"),
      contract={"ret": ZERO_OR_ERRNO,
                "errno": ("EINVAL", "ENOMEM", "EOPNOTSUPP")}),
    V("ibv_post_recv", "int",
      (P("qp", "struct ibv_qp *", "a QP in INIT, RTR or RTS, no SRQ"),
       P("wr", "struct ibv_recv_wr *", "num_sge 1, LOCAL_WRITE MR; UD: "
         "length >= 40 + payload", ("bad lkey", "QP in RESET")),
       P("bad_wr", "struct ibv_recv_wr **", "writable")),
      "datapath", requires=("qp:INIT", "mr"),
      contract={"ret": ZERO_OR_ERRNO, "errno": ("EINVAL", "ENOMEM")}),
    # ---- AH ----------------------------------------------------------
    V("ibv_create_ah", "struct ibv_ah *",
      (P("pd", "struct ibv_pd *", "a live PD"),
       P("attr", "struct ibv_ah_attr *", "is_global 1, port 1, sgid_index "
         "of a RoCE GID", ("is_global 0 on RoCE", "sgid_index empty"))),
      "ah", requires=("pd",), produces=("ah",),
      contract={"ret": PTR_OR_NULL_ERRNO, "errno": ("EINVAL", "ENODATA")}),
    V("ibv_destroy_ah", "int", (P("ah", "struct ibv_ah *", "a live AH"),),
      "ah", requires=("ah",), destroys=("ah",),
      contract={"ret": ZERO_OR_ERRNO}),
    # ---- WQ (EOPNOTSUPP on rxe, both stacks) -------------------------
    V("ibv_create_wq", "struct ibv_wq *",
      (CTX, P("wq_init_attr", "struct ibv_wq_init_attr *",
              "IBV_WQT_RQ on a PD and CQ")),
      "wq", requires=("ctx", "pd", "cq"), produces=("wq:RESET",),
      contract={"ret": PTR_OR_NULL_ERRNO, "errno": ("EOPNOTSUPP",)}),
    V("ibv_modify_wq", "int",
      (P("wq", "struct ibv_wq *", "a live WQ"),
       P("wq_attr", "struct ibv_wq_attr *", "RESET/RDY/ERR")),
      "wq", requires=("wq",), transition="wq state",
      contract={"ret": ZERO_OR_ERRNO}),
    V("ibv_destroy_wq", "int", (P("wq", "struct ibv_wq *", "a live WQ"),),
      "wq", requires=("wq",), destroys=("wq",),
      contract={"ret": ZERO_OR_ERRNO,
                "blocks": "until its returned async events are acked"}),
    # ---- extended CQ (create_cq_ex op; user/src/cq_ex.c) --------------
    V("ibv_create_cq_ex", "struct ibv_cq_ex *",
      (CTX, P("cq_attr", "struct ibv_cq_init_attr_ex *",
              "cqe 1..max_cqe, wc_flags within IBV_WC_STANDARD_FLAGS, "
              "comp_mask FLAGS with SINGLE_THREADED at most",
              ("wc_flags COMPLETION_TIMESTAMP (EOPNOTSUPP)",
               "comp_mask PD (EOPNOTSUPP)", "flags IGNORE_OVERRUN "
               "(EOPNOTSUPP)", "cqe > max_cqe (EINVAL)",
               "comp_vector >= num_comp_vectors (EINVAL)"))),
      "extended", requires=("ctx",), produces=("cq",),
      contract={"ret": PTR_OR_NULL_ERRNO,
                "errno": ("EINVAL", "EOPNOTSUPP", "ENOMEM")}),
    V("ibv_start_poll", "int",
      (CQX, P("attr", "struct ibv_poll_cq_attr *", "comp_mask 0",
              ("comp_mask != 0 (EINVAL)",))),
      "extended", requires=("cq",),
      contract={"ret": "0 with a current completion (wr_id, status set); "
                       "ENOENT if empty (no session: no end_poll needed); "
                       "else an errno",
                "session": "from a 0 return to ibv_end_poll, by one thread"}),
    V("ibv_next_poll", "int", (CQX,), "extended", requires=("cq",),
      contract={"ret": "0 with the next completion current; ENOENT when "
                       "none is left; else an errno",
                "order": "as ibv_poll_cq; each completion once"}),
    V("ibv_end_poll", "void", (CQX,), "extended", requires=("cq",),
      contract={"ret": VOID,
                "consumes": "the current completion; unread ones stay for "
                            "the next session or ibv_poll_cq, in order"}),
    V("ibv_wc_read_opcode", "enum ibv_wc_opcode", (CQX,), "extended",
      requires=("cq",),
      contract={"ret": "the current completion's opcode (session only)"}),
    V("ibv_wc_read_byte_len", "uint32_t", (CQX,), "extended",
      requires=("cq",),
      contract={"ret": "the current completion's byte_len (session only)"}),
    # ---- the ibv_wr_*() API (QPs with send_ops_flags; qp_wr.c) ----------
    V("ibv_qp_to_qp_ex", "struct ibv_qp_ex *",
      (P("qp", "struct ibv_qp *", "a live QP"),), "extended",
      requires=("qp",), symbols=("ibv_qp_to_qp_ex",),
      contract={"ret": "the QP's ibv_qp_ex if created with "
                       "IBV_QP_INIT_ATTR_SEND_OPS_FLAGS; else NULL"}),
    V("ibv_wr_start", "void", (QPX,), "extended", requires=("qp",),
      contract={"ret": VOID,
                "session": "until ibv_wr_complete or ibv_wr_abort; one "
                           "session per QP at a time"}),
    V("ibv_wr_complete", "int", (QPX,), "extended", requires=("qp",),
      contract={"ret": ZERO_OR_ERRNO,
                "errno": ("EINVAL", "EOPNOTSUPP", "ENOMEM"),
                "posts": "every request of the session as ibv_post_send; "
                         "a misuse while building posts nothing"}),
    V("ibv_wr_abort", "void", (QPX,), "extended", requires=("qp",),
      contract={"ret": VOID, "posts": "nothing"}),
    V("ibv_wr_send", "void", (QPX,), "extended", requires=("qp:RTS",),
      contract={"ret": VOID, "needs": "send op SEND"}),
    V("ibv_wr_send_imm", "void",
      (QPX, P("imm_data", "__be32", "any")), "extended",
      requires=("qp:RTS",),
      contract={"ret": VOID, "needs": "send op SEND_WITH_IMM"}),
    V("ibv_wr_rdma_write", "void", (QPX, RKEY, RADDR), "extended",
      requires=("qp:RTS", "mr"),
      contract={"ret": VOID, "needs": "send op RDMA_WRITE (USER_MR)"}),
    V("ibv_wr_rdma_write_imm", "void",
      (QPX, RKEY, RADDR, P("imm_data", "__be32", "any")), "extended",
      requires=("qp:RTS", "mr"),
      contract={"ret": VOID,
                "needs": "send op RDMA_WRITE_WITH_IMM (USER_MR)"}),
    V("ibv_wr_rdma_read", "void", (QPX, RKEY, RADDR), "extended",
      requires=("qp:RTS", "mr"),
      contract={"ret": VOID, "needs": "send op RDMA_READ (USER_MR)"}),
    V("ibv_wr_atomic_cmp_swp", "void",
      (QPX, RKEY, RADDR, P("compare", "uint64_t", "any"),
       P("swap", "uint64_t", "any")), "extended",
      requires=("qp:RTS", "mr"),
      contract={"ret": VOID,
                "needs": "send op ATOMIC_CMP_AND_SWP (USER_MR), 8-byte "
                         "aligned remote_addr, an 8-byte SGE"}),
    V("ibv_wr_atomic_fetch_add", "void",
      (QPX, RKEY, RADDR, P("add", "uint64_t", "any")), "extended",
      requires=("qp:RTS", "mr"),
      contract={"ret": VOID,
                "needs": "send op ATOMIC_FETCH_AND_ADD (USER_MR), 8-byte "
                         "aligned remote_addr, an 8-byte SGE"}),
    V("ibv_wr_set_sge", "void",
      (QPX, P("lkey", "uint32_t", "an MR's lkey", ("0xdeadbeef",)),
       P("addr", "uint64_t", "within that MR"),
       P("length", "uint32_t", "0..MR length")), "extended",
      requires=("qp", "mr"),
      contract={"ret": VOID, "needs": "an op first (else EINVAL at "
                                      "ibv_wr_complete)"}),
    V("ibv_wr_set_sge_list", "void",
      (QPX, P("num_sge", "size_t", "0..max_send_sge"),
       P("sg_list", "const struct ibv_sge *", "num_sge long")), "extended",
      requires=("qp", "mr"),
      contract={"ret": VOID, "copies": "sg_list, at once"}),
    V("ibv_wr_set_inline_data", "void",
      (QPX, P("addr", "void *", "readable"),
       P("length", "size_t", "0..max_inline_data")), "extended",
      requires=("qp",),
      contract={"ret": VOID, "copies": "the data, at once"}),
    V("ibv_wr_set_inline_data_list", "void",
      (QPX, P("num_buf", "size_t", "0.."),
       P("buf_list", "const struct ibv_data_buf *", "num_buf long")),
      "extended", requires=("qp",),
      contract={"ret": VOID, "copies": "the data, at once"}),
    V("ibv_wr_set_ud_addr", "void",
      (QPX, P("ah", "struct ibv_ah *", "a live AH"),
       P("remote_qpn", "uint32_t", "a UD QP number"),
       P("remote_qkey", "uint32_t", "its qkey")), "extended",
      requires=("qp", "ah"),
      contract={"ret": VOID, "needs": "a UD QP (else EINVAL at "
                                      "ibv_wr_complete)"}),
    # ---- the context's operation tables ---------------------------------
    # verbs.h's static inlines over struct verbs_context / ibv_context_ops
    # and the exported calls that only reach a provider op.  On rxe most
    # meet the default op on both stacks; "outcome" says how each ends
    # (ib_async_inline_verbs.c measured them; gen.py's s_inline draws them
    # and intended.py names the family that differs by design).
    V("ibv_query_device_ex", "int",
      (CTX, P("input", "const struct ibv_query_device_ex_input *",
              "NULL or comp_mask 0", nullable=True),
       P("attr", "struct ibv_device_attr_ex *", "writable")),
      "inline", requires=("ctx",), outcome=BOTH_WORK,
      contract={"ret": ZERO_OR_ERRNO,
                "note": "orig_attr as ibv_query_device; phys_port_cnt_ex"}),
    V("ibv_query_rt_values_ex", "int",
      (CTX, P("values", "struct ibv_values_ex *",
              "comp_mask IBV_VALUES_MASK_RAW_CLOCK")),
      "inline", requires=("ctx",), outcome=BOTH_EOPNOTSUPP,
      contract={"ret": ZERO_OR_ERRNO, "errno": ("EOPNOTSUPP",)}),
    V("ibv_create_qp_ex", "struct ibv_qp *",
      (CTX, P("qp_init_attr_ex", "struct ibv_qp_init_attr_ex *",
              "as ibv_create_qp, comp_mask PD (| SEND_OPS_FLAGS)")),
      "inline", requires=("ctx", "pd", "cq"), produces=("qp:RESET",),
      outcome=BOTH_WORK,
      contract={"ret": PTR_OR_NULL_ERRNO,
                "errno": ("EINVAL", "EOPNOTSUPP", "ENOMEM")}),
    V("ibv_create_srq_ex", "struct ibv_srq *",
      (CTX, P("srq_init_attr_ex", "struct ibv_srq_init_attr_ex *",
              "comp_mask PD (| TYPE BASIC | CQ)",
              ("srq_type XRC without an XRC domain (EINVAL)",
               "srq_type TM (EOPNOTSUPP)"))),
      "inline", requires=("ctx", "pd"), produces=("srq",),
      outcome=BOTH_WORK,
      contract={"ret": PTR_OR_NULL_ERRNO, "errno": ("EINVAL", "EOPNOTSUPP"),
                "invalid": "XRC without xrcd: NULL, EINVAL; tag matching: "
                           "NULL, EOPNOTSUPP (both stacks)"}),
    V("ibv_get_srq_num", "int",
      (P("srq", "struct ibv_srq *", "a live SRQ (XRC for a number)"),
       P("srq_num", "uint32_t *", "writable")),
      "inline", requires=("srq",), outcome=BOTH_EOPNOTSUPP,
      contract={"ret": ZERO_OR_ERRNO}),
    V("ibv_post_srq_ops", "int",
      (P("srq", "struct ibv_srq *", "a tag-matching SRQ"),
       P("op", "struct ibv_ops_wr *", "a tag operation"),
       P("bad_op", "struct ibv_ops_wr **", "writable")),
      "inline", requires=("srq",), outcome=BOTH_EOPNOTSUPP,
      contract={"ret": ZERO_OR_ERRNO, "note": "*bad_op untouched"}),
    V("ibv_modify_cq", "int",
      (P("cq", "struct ibv_cq *", "a live CQ"),
       P("attr", "struct ibv_modify_cq_attr *", "attr_mask MODERATE")),
      "inline", requires=("cq",), outcome=BOTH_EOPNOTSUPP,
      contract={"ret": ZERO_OR_ERRNO}),
    V("ibv_modify_qp_rate_limit", "int",
      (P("qp", "struct ibv_qp *", "a live QP"),
       P("attr", "struct ibv_qp_rate_limit_attr *", "a rate in kbps")),
      "inline", requires=("qp",), outcome=BOTH_EOPNOTSUPP,
      contract={"ret": ZERO_OR_ERRNO}),
    V("ibv_open_qp", "struct ibv_qp *",
      (CTX, P("qp_open_attr", "struct ibv_qp_open_attr *",
              "an XRC target QP's number and XRC domain")),
      "inline", requires=("ctx", "xrcd"), produces=("qp",),
      outcome=BOTH_NULL, contract={"ret": PTR_OR_NULL_ERRNO}),
    V("ibv_query_qp_data_in_order", "int",
      (P("qp", "struct ibv_qp *", "a live QP"),
       P("op", "enum ibv_wr_opcode", "a send opcode"),
       P("flags", "uint32_t", "0")),
      "inline", requires=("qp",), outcome=BOTH_WORK,
      symbols=("ibv_query_qp_data_in_order",),
      contract={"ret": "1 if data lands in order, else 0 (0 on rxe)"}),
    V("ibv_query_ece", "int",
      (P("qp", "struct ibv_qp *", "a live QP"),
       P("ece", "struct ibv_ece *", "writable")),
      "inline", requires=("qp",), outcome=BOTH_EOPNOTSUPP,
      symbols=("ibv_query_ece",), contract={"ret": ZERO_OR_ERRNO}),
    V("ibv_set_ece", "int",
      (P("qp", "struct ibv_qp *", "a QP in RESET or INIT"),
       P("ece", "struct ibv_ece *", "vendor_id of the device",
         ("vendor_id 0 (EOPNOTSUPP, errno EOPNOTSUPP too)",))),
      "inline", requires=("qp",), outcome=BOTH_EOPNOTSUPP,
      symbols=("ibv_set_ece",),
      contract={"ret": ZERO_OR_ERRNO,
                "invalid": "vendor_id 0: libibverbs refuses it itself, "
                           "EOPNOTSUPP with errno set (both stacks)"}),
    V("ibv_alloc_td", "struct ibv_td *",
      (CTX, P("init_attr", "struct ibv_td_init_attr *", "comp_mask 0")),
      "inline", requires=("ctx",), produces=("td",), outcome=BOTH_NULL,
      contract={"ret": PTR_OR_NULL_ERRNO}),
    V("ibv_dealloc_td", "int", (P("td", "struct ibv_td *", "a live TD"),),
      "inline", requires=("td",), destroys=("td",), outcome=BOTH_EOPNOTSUPP,
      contract={"ret": ZERO_OR_ERRNO}),
    V("ibv_alloc_parent_domain", "struct ibv_pd *",
      (CTX, P("attr", "struct ibv_parent_domain_init_attr *",
              "pd a live PD (td optional)")),
      "inline", requires=("ctx", "pd"), produces=("pd",), outcome=BOTH_NULL,
      contract={"ret": PTR_OR_NULL_ERRNO}),
    V("ibv_open_xrcd", "struct ibv_xrcd *",
      (CTX, P("xrcd_init_attr", "struct ibv_xrcd_init_attr *",
              "comp_mask FD | OFLAGS, fd -1, oflags O_CREAT")),
      "inline", requires=("ctx",), produces=("xrcd",), outcome=BOTH_NULL,
      contract={"ret": PTR_OR_NULL_ERRNO}),
    V("ibv_close_xrcd", "int",
      (P("xrcd", "struct ibv_xrcd *", "a live XRC domain"),),
      "inline", requires=("xrcd",), destroys=("xrcd",),
      outcome=BOTH_EOPNOTSUPP,
      contract={"ret": ZERO_OR_ERRNO,
                "note": "calls the op without testing it: never NULL"}),
    V("ibv_alloc_dm", "struct ibv_dm *",
      (CTX, P("attr", "struct ibv_alloc_dm_attr *", "length > 0")),
      "inline", requires=("ctx",), produces=("dm",), outcome=BOTH_NULL,
      contract={"ret": PTR_OR_NULL_ERRNO}),
    V("ibv_free_dm", "int", (P("dm", "struct ibv_dm *", "live device memory"),),
      "inline", requires=("dm",), destroys=("dm",), outcome=BOTH_EOPNOTSUPP,
      contract={"ret": ZERO_OR_ERRNO}),
    V("ibv_reg_dm_mr", "struct ibv_mr *",
      (P("pd", "struct ibv_pd *", "a live PD"),
       P("dm", "struct ibv_dm *", "live device memory"),
       P("dm_offset", "uint64_t", "within dm"),
       P("length", "size_t", "1.."),
       P("access", "unsigned int", "with IBV_ACCESS_ZERO_BASED")),
      "inline", requires=("pd", "dm"), produces=("mr",), outcome=BOTH_NULL,
      contract={"ret": PTR_OR_NULL_ERRNO}),
    V("ibv_alloc_null_mr", "struct ibv_mr *",
      (P("pd", "struct ibv_pd *", "a live PD"),),
      "inline", requires=("pd",), produces=("mr",), outcome=BOTH_NULL,
      contract={"ret": PTR_OR_NULL_ERRNO}),
    V("ibv_reg_dmabuf_mr", "struct ibv_mr *",
      (P("pd", "struct ibv_pd *", "a live PD"),
       P("offset", "uint64_t", "within the dmabuf"),
       P("length", "size_t", "1.."), P("iova", "uint64_t", "any"),
       P("fd", "int", "a dmabuf fd", (-1,)),
       P("access", "int", "as ibv_reg_mr")),
      "inline", requires=("pd",), produces=("mr",), outcome=BOTH_NULL,
      symbols=("ibv_reg_dmabuf_mr",), contract={"ret": PTR_OR_NULL_ERRNO}),
    V("ibv_advise_mr", "int",
      (P("pd", "struct ibv_pd *", "a live PD"),
       P("advice", "enum ibv_advise_mr_advice", "PREFETCH(_WRITE|_NO_FAULT)"),
       P("flags", "uint32_t", "0 or IBV_ADVISE_MR_FLAG_FLUSH"),
       P("sg_list", "struct ibv_sge *", "lkeys of the PD's MRs"),
       P("num_sge", "uint32_t", "1..")),
      "inline", requires=("pd", "mr"), outcome=BOTH_EOPNOTSUPP,
      contract={"ret": ZERO_OR_ERRNO}),
    V("ibv_alloc_mw", "struct ibv_mw *",
      (P("pd", "struct ibv_pd *", "a live PD"),
       P("type", "enum ibv_mw_type", "IBV_MW_TYPE_1 or _2")),
      "inline", requires=("pd",), produces=("mw",),
      outcome=(WORKS, "NULL, errno EOPNOTSUPP: a module has no kernel "
               "verbs for memory windows (intended.py)"),
      contract={"ret": PTR_OR_NULL_ERRNO, "errno": ("EOPNOTSUPP",)}),
    V("ibv_dealloc_mw", "int", (P("mw", "struct ibv_mw *", "a live MW"),),
      "inline", requires=("mw",), destroys=("mw",),
      outcome=(WORKS, "never reached: no MW is made"),
      contract={"ret": ZERO_OR_ERRNO,
                "note": "calls the op without testing it: never NULL"}),
    V("ibv_bind_mw", "int",
      (P("qp", "struct ibv_qp *", "an RC QP in RTS"),
       P("mw", "struct ibv_mw *", "a live type-1 MW"),
       P("mw_bind", "struct ibv_mw_bind *", "an MR with MW_BIND access")),
      "inline", requires=("qp:RTS", "mw", "mr"),
      outcome=(WORKS, "never reached: no MW is made"),
      contract={"ret": ZERO_OR_ERRNO,
                "note": "posts a bind request: a completion on the send CQ"}),
    V("ibv_attach_mcast", "int",
      (P("qp", "struct ibv_qp *", "a UD QP"),
       P("gid", "const union ibv_gid *", "a multicast GID (ff..)"),
       P("lid", "uint16_t", "0 on RoCE")),
      "inline", requires=("qp",), symbols=("ibv_attach_mcast",),
      outcome=BOTH_WORK,
      contract={"ret": ZERO_OR_ERRNO}),
    V("ibv_detach_mcast", "int",
      (P("qp", "struct ibv_qp *", "a UD QP attached to gid"),
       P("gid", "const union ibv_gid *", "that GID"),
       P("lid", "uint16_t", "0 on RoCE")),
      "inline", requires=("qp",), symbols=("ibv_detach_mcast",),
      outcome=BOTH_WORK,
      contract={"ret": ZERO_OR_ERRNO}),
    V("ibv_create_flow", "struct ibv_flow *",
      (P("qp", "struct ibv_qp *", "a UD or raw packet QP"),
       P("flow", "struct ibv_flow_attr *", "size, port, specs")),
      "inline", requires=("qp",), produces=("flow",), outcome=BOTH_NULL,
      contract={"ret": PTR_OR_NULL_ERRNO}),
    V("ibv_destroy_flow", "int",
      (P("flow_id", "struct ibv_flow *", "a live flow"),),
      "inline", requires=("flow",), destroys=("flow",),
      outcome=BOTH_EOPNOTSUPP, contract={"ret": ZERO_OR_ERRNO}),
    V("ibv_create_flow_action_esp", "struct ibv_flow_action *",
      (P("ctx", "struct ibv_context *", "an open context"),
       P("esp", "struct ibv_flow_action_esp_attr *", "an ESP offload")),
      "inline", requires=("ctx",), produces=("flow_action",),
      outcome=BOTH_NULL, contract={"ret": PTR_OR_NULL_ERRNO}),
    V("ibv_modify_flow_action_esp", "int",
      (P("action", "struct ibv_flow_action *", "a live ESP action"),
       P("esp", "struct ibv_flow_action_esp_attr *", "an ESP offload")),
      "inline", requires=("flow_action",), outcome=BOTH_EOPNOTSUPP,
      contract={"ret": ZERO_OR_ERRNO}),
    V("ibv_destroy_flow_action", "int",
      (P("action", "struct ibv_flow_action *", "a live action"),),
      "inline", requires=("flow_action",), destroys=("flow_action",),
      outcome=BOTH_EOPNOTSUPP, contract={"ret": ZERO_OR_ERRNO}),
    V("ibv_create_counters", "struct ibv_counters *",
      (CTX, P("init_attr", "struct ibv_counters_init_attr *", "comp_mask 0")),
      "inline", requires=("ctx",), produces=("counters",),
      outcome=BOTH_NULL, contract={"ret": PTR_OR_NULL_ERRNO}),
    V("ibv_destroy_counters", "int",
      (P("counters", "struct ibv_counters *", "live counters"),),
      "inline", requires=("counters",), destroys=("counters",),
      outcome=BOTH_EOPNOTSUPP, contract={"ret": ZERO_OR_ERRNO}),
    V("ibv_attach_counters_point_flow", "int",
      (P("counters", "struct ibv_counters *", "live counters"),
       P("attr", "struct ibv_counter_attach_attr *", "a counter description"),
       P("flow", "struct ibv_flow *", "a flow")),
      "inline", requires=("counters", "flow"), outcome=BOTH_EOPNOTSUPP,
      contract={"ret": ZERO_OR_ERRNO}),
    V("ibv_read_counters", "int",
      (P("counters", "struct ibv_counters *", "live counters"),
       P("counters_value", "uint64_t *", "ncounters long"),
       P("ncounters", "uint32_t", "1.."), P("flags", "uint32_t", "0")),
      "inline", requires=("counters",), outcome=BOTH_EOPNOTSUPP,
      contract={"ret": ZERO_OR_ERRNO}),
    V("ibv_create_rwq_ind_table", "struct ibv_rwq_ind_table *",
      (CTX, P("init_attr", "struct ibv_rwq_ind_table_init_attr *",
              "2^log_ind_tbl_size live WQs")),
      "inline", requires=("ctx",), produces=("rwq_ind_table",),
      outcome=BOTH_NULL, contract={"ret": PTR_OR_NULL_ERRNO}),
    V("ibv_destroy_rwq_ind_table", "int",
      (P("rwq_ind_table", "struct ibv_rwq_ind_table *", "a live table"),),
      "inline", requires=("rwq_ind_table",), destroys=("rwq_ind_table",),
      outcome=BOTH_EOPNOTSUPP, contract={"ret": ZERO_OR_ERRNO}),
    V("ibv_import_device", "struct ibv_context *",
      (P("cmd_fd", "int", "a dup of a context's cmd_fd"),),
      "inline", produces=("ctx",), outcome=BOTH_NULL,
      symbols=("ibv_import_device",), contract={"ret": PTR_OR_NULL_ERRNO}),
    V("ibv_import_pd", "struct ibv_pd *",
      (CTX, P("pd_handle", "uint32_t", "a PD's handle in the context")),
      "inline", requires=("ctx", "pd"), produces=("pd",), outcome=BOTH_NULL,
      symbols=("ibv_import_pd",), contract={"ret": PTR_OR_NULL_ERRNO}),
    V("ibv_unimport_pd", "void",
      (P("pd", "struct ibv_pd *", "an imported PD"),),
      "inline", requires=("pd",), destroys=("pd",),
      outcome=("never reached: no import succeeds",) * 2,
      symbols=("ibv_unimport_pd",), contract={"ret": VOID}),
    V("ibv_import_mr", "struct ibv_mr *",
      (P("pd", "struct ibv_pd *", "a live PD"),
       P("mr_handle", "uint32_t", "an MR's handle in that PD")),
      "inline", requires=("pd", "mr"), produces=("mr",), outcome=BOTH_NULL,
      symbols=("ibv_import_mr",), contract={"ret": PTR_OR_NULL_ERRNO}),
    V("ibv_unimport_mr", "void",
      (P("mr", "struct ibv_mr *", "an imported MR"),),
      "inline", requires=("mr",), destroys=("mr",),
      outcome=("never reached: no import succeeds",) * 2,
      symbols=("ibv_unimport_mr",), contract={"ret": VOID}),
    V("ibv_import_dm", "struct ibv_dm *",
      (CTX, P("dm_handle", "uint32_t", "a DM's handle in the context")),
      "inline", requires=("ctx",), produces=("dm",), outcome=BOTH_NULL,
      symbols=("ibv_import_dm",), contract={"ret": PTR_OR_NULL_ERRNO}),
    V("ibv_unimport_dm", "void",
      (P("dm", "struct ibv_dm *", "imported device memory"),),
      "inline", requires=("dm",), destroys=("dm",),
      outcome=("never reached: no import succeeds",) * 2,
      symbols=("ibv_unimport_dm",), contract={"ret": VOID}),
)

BY_NAME = {v.name: v for v in VERBS}

# Symbols the shim exports (libibasync.map) that no VerbCall describes.
NOT_DESCRIBED = {
    "ibv_rereg_mr": "no provider op on rxe: IBV_REREG_MR_ERR_CMD with errno "
                    "EOPNOTSUPP on both stacks (IBV_REREG_MR_ERR_INPUT, "
                    "EINVAL, for arguments libibverbs refuses itself)",
    "ibv_init_ah_from_wc": "AHs from work completions: EOPNOTSUPP",
    "ibv_create_ah_from_wc": "AHs from work completions: EOPNOTSUPP",
    "ibv_resolve_eth_l2_from_gid": "EOPNOTSUPP: the kernel resolves MACs",
    "ibv_query_gid_type": "libibverbs' private IBVERBS_PRIVATE_34 call, in no "
                          "public header: ibv_devinfo asks each GID's type "
                          "with it (ib_async_devinfo.sh compares that)",
}

# Static inlines of <infiniband/verbs.h> that call through the context's
# op tables (test_verbs.py finds them) and that no VerbCall describes, each
# with the reason.  Empty for rdma-core 44: every one is described.  A
# newer rdma-core's new inline fails test_verbs.py until it is described
# (its outcome on both stacks measured) or listed here.
INLINE_NOT_DESCRIBED = {}


def exported_symbol_names(verb):
    """The shim's exported symbols that implement `verb`."""
    if verb.symbols:
        return verb.symbols
    if verb.group in ("datapath", "extended", "inline") or \
       verb.name.endswith("_wq"):
        return ()           # inlines through ctx->ops / verbs_context
    if verb.group == "string":
        return ()           # libibverbs' own (user/libibasync.map)
    return (verb.name,)
