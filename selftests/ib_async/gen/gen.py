#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""seed -> one C program: a random, mostly valid sequence of verb calls.

  gen.py SEED [--steps N] > prog.c

The program is drawn from verbs.py: at each step a verb whose required
resources exist in the model is chosen, its arguments are picked from the
valid ranges (a small share from the invalid ones, or in the wrong order),
and the model is updated with what it produces, destroys and the state it
moves to.  Traffic is real: sends between the program's own QPs on the
loopback device (RC between connected pairs, UD through AHs), and events
are real: CQ overrun, QP to ERR and SQD, SRQ limit.  Everything still alive
is destroyed in random order at the end (with EBUSY where the order is
wrong), then the context is closed.

The model only produces hints (how many completions or events to wait
for) and keeps the program away from what would make the trace depend on
timing (an RC send with no receive posted waits for RNR retries); the
trace, not the model, is what the two stacks are compared on.  The
program's runtime is difftest_rt.h.
"""
import argparse
import random
import sys

import verbs

MAX_PER_KIND = 8
INVALID_SHARE = 0.08
# QPs only use CQs with this much room: more completions than a CQ holds
# overrun it, and which ones are lost then depends on when each stack
# happens to poll (provider timing). Overruns have their own scenario.
QP_CQ_MIN = 64


class Obj:
    def __init__(self, idx, **kw):
        self.idx = idx
        self.live = True
        # QPs and SRQs: the MRs their posted receives use, and whether one
        # was deregistered under them (the next message may fail the QP)
        self.rx_mrs = set()
        self.doomed = False
        self.__dict__.update(kw)


class Program:
    def __init__(self, seed, steps):
        self.rng = random.Random(seed)
        self.seed = seed
        self.steps = steps
        self.out = []
        self.kinds = {k: [] for k in ("pd", "mr", "cq", "srq", "qp", "ah")}
        self.wr_id = 0
        self.used = set()           # verbs drawn, for the coverage check

    # ---- model helpers ----------------------------------------------------
    def live(self, kind, pred=lambda o: True):
        return [o for o in self.kinds[kind] if o.live and pred(o)]

    def new(self, kind, **kw):
        o = Obj(len(self.kinds[kind]), **kw)
        self.kinds[kind].append(o)
        return o

    def can_new(self, kind):
        return len(self.kinds[kind]) < MAX_PER_KIND

    def emit(self, verb, code):
        """One C statement for one verb of the table."""
        assert verb in verbs.BY_NAME, verb
        self.used.add(verb)
        self.out.append("\t" + code)

    def invalid(self):
        return self.rng.random() < INVALID_SHARE

    def next_wr(self):
        self.wr_id += 1
        return self.wr_id

    def rq_of(self, q):
        return self.kinds["srq"][q.srq] if q.srq >= 0 else q

    def doomed(self, q):
        """A message to q may land in a receive whose MR is gone: the QP
        (and an RC sender) then goes to ERR, which the model cannot tell
        from the trace; so no more traffic to it, nor receives."""
        return self.rq_of(q).doomed

    def recv(self, target, m, srq=False):
        """One receive of 512 bytes into MR m, posted to a QP or an SRQ."""
        q, s = (-1, target.idx) if srq else (target.idx, -1)
        self.emit("ibv_post_srq_recv" if srq else "ibv_post_recv",
                  f"post_recv({q}, {s}, {m.idx}, {self.next_wr()}, 512, 0);")
        target.rx_mrs.add(m.idx)

    # ---- steps, one per verb ------------------------------------------------
    def s_alloc_pd(self):
        if not self.can_new("pd"):
            return False
        p = self.new("pd")
        self.emit("ibv_alloc_pd",
                  f'pd[{p.idx}] = ibv_alloc_pd(ctx); '
                  f'tr_ptr("ibv_alloc_pd(pd{p.idx})", "ok", pd[{p.idx}]);')
        return True

    def s_reg_mr(self):
        pds = self.live("pd")
        if not pds or not self.can_new("mr"):
            return False
        p = self.rng.choice(pds)
        access = self.rng.choice([1, 1, 1, 1 | 2, 1 | 4, 1 | 2 | 4 | 8])
        if self.invalid():
            # REMOTE_WRITE without LOCAL_WRITE: EINVAL by the IB spec.
            access = 2
        m = self.new("mr", pd=p.idx, access=access, ok=access & 1)
        self.emit("ibv_reg_mr", f"reg_mr({m.idx}, {p.idx}, {access:#x});")
        if access == 2:
            m.live = False
        return True

    def s_reg_mr_mw_bind(self):
        """MW_BIND access: refused by the shim without USER_MR, by design
        (intended.py); self-contained."""
        pds = self.live("pd")
        if not pds or self.rng.random() > 0.2:
            return False
        p = self.rng.choice(pds)
        self.emit("ibv_reg_mr", "{ struct ibv_mr *t = ibv_reg_mr("
                  f"pd[{p.idx}], buf[MAXO - 1], 4096, 0x11); "
                  f'tr_ptr("ibv_reg_mr(tmp pd{p.idx} access=0x11)", "ok", t); '
                  'if (t) tr_rc("ibv_dereg_mr(tmp)", ibv_dereg_mr(t)); }')
        self.used.add("ibv_dereg_mr")
        return True

    def s_create_cq(self):
        if not self.can_new("cq"):
            return False
        cqe = self.rng.choice([1, 2, 4, 16, 32, 64, 128, 256])
        vec = 0
        if self.invalid():
            cqe, vec = self.rng.choice([(0, 0), (-1, 0), (1 << 30, 0),
                                        (4, 1000)])
        c = self.new("cq", cqe=cqe, pending=0)
        self.emit("ibv_create_cq", f"create_cq({c.idx}, {cqe}, {vec});")
        if cqe < 1 or cqe > 1 << 20 or vec:
            c.live = False
        return True

    def s_create_srq(self):
        pds = self.live("pd")
        if not pds or not self.can_new("srq"):
            return False
        p = self.rng.choice(pds)
        max_wr = self.rng.choice([4, 8, 16, 32])
        s = self.new("srq", pd=p.idx, posted=0, limit=0)
        self.emit("ibv_create_srq", f"create_srq({s.idx}, {p.idx}, {max_wr});")
        s.max_wr = max_wr
        return True

    def s_create_qp(self, qtype=None, rcq=None, srq=None):
        pds = self.live("pd")
        cqs = self.live("cq", lambda c: c.cqe >= QP_CQ_MIN)
        if not pds or not cqs or not self.can_new("qp"):
            return False
        if srq is None:
            srqs = self.live("srq")
            srq = (self.rng.choice(srqs) if srqs and self.rng.random() < 0.3
                   else None)
        p = self.kinds["pd"][srq.pd] if srq else self.rng.choice(pds)
        if qtype is None and self.invalid():
            return self.s_create_uc(p, cqs)
        qtype = qtype or self.rng.choice(["RC", "UD"])
        sc = self.rng.choice(cqs)
        rc = rcq or self.rng.choice(cqs)
        q = self.new("qp", type=qtype, pd=p.idx, scq=sc.idx, rcq=rc.idx,
                     srq=srq.idx if srq else -1, state="RESET", peer=None,
                     posted=0, limit=0)
        self.emit("ibv_create_qp",
                  f"create_qp({q.idx}, {p.idx}, IBV_QPT_{qtype}, {sc.idx}, "
                  f"{rc.idx}, {q.srq}, 16);")
        return q

    def s_create_uc(self, p, cqs):
        """UC: created and destroyed at once; self-contained."""
        c = self.rng.choice(cqs)
        self.emit("ibv_create_qp",
                  "{ struct ibv_qp_init_attr a = { .send_cq = cq[%d], "
                  ".recv_cq = cq[%d], .qp_type = IBV_QPT_UC, .cap = { 4, 4, 1, "
                  "1, 0 } }; struct ibv_qp *t = (pd[%d] && cq[%d]) ? "
                  "ibv_create_qp(pd[%d], &a) : NULL; "
                  'tr_ptr("ibv_create_qp(tmp UC)", "ok", t); '
                  'if (t) tr_rc("ibv_destroy_qp(tmp)", ibv_destroy_qp(t)); }'
                  % (c.idx, c.idx, p.idx, c.idx, p.idx))
        return True

    def modify(self, q, state, peer=-1):
        self.emit("ibv_modify_qp", f"modify_qp({q.idx}, IBV_QPS_{state}, "
                  f"{peer}, -1);")

    def s_qp_init(self):
        qs = self.live("qp", lambda o: o.state == "RESET")
        if not qs:
            return False
        q = self.rng.choice(qs)
        self.modify(q, "INIT")
        q.state = "INIT"
        return True

    def s_connect(self):
        """RTR and RTS: an RC pair (or an RC QP looped to itself), a UD QP."""
        qs = self.live("qp", lambda o: o.state == "INIT")
        if not qs:
            return False
        q = self.rng.choice(qs)
        if q.type == "UD":
            self.modify(q, "RTR")
            self.modify(q, "RTS")
            q.state = "RTS"
            return True
        others = [o for o in qs if o.type == "RC" and o is not q]
        p = self.rng.choice(others) if others and self.rng.random() < 0.7 \
            else q
        for a, b in ((q, p), (p, q)) if p is not q else ((q, q),):
            self.modify(a, "RTR", b.idx)
        for a in (q, p) if p is not q else (q,):
            self.modify(a, "RTS")
            a.state = "RTS"
        q.peer, p.peer = p.idx, q.idx
        return True

    def s_bad_transition(self):
        qs = self.live("qp")
        if not qs:
            return False
        q = self.rng.choice(qs)
        to = self.rng.choice(["RTR", "RTS", "SQD"])
        if (q.state, to) in verbs.QP_TRANSITIONS:
            return False
        # Only the state bit: a transition the driver must refuse.
        self.emit("ibv_modify_qp", f"modify_qp({q.idx}, IBV_QPS_{to}, -1, "
                  "IBV_QP_STATE);")
        return True

    def s_qp_err(self):
        qs = self.live("qp", lambda o: o.state != "RESET")
        if not qs:
            return False
        q = self.rng.choice(qs)
        self.modify(q, "ERR")
        q.state = "ERR"
        cq = self.kinds["cq"][q.rcq]
        if q.srq < 0:
            cq.pending += q.posted
            q.posted = 0
        self.events(1 if cq.pending > cq.cqe else 0)
        return True

    def s_qp_reset(self):
        qs = self.live("qp", lambda o: o.state in ("ERR", "INIT"))
        if not qs:
            return False
        q = self.rng.choice(qs)
        self.modify(q, "RESET")
        q.state, q.peer, q.posted = "RESET", None, 0
        q.rx_mrs, q.doomed = set(), False     # RESET empties its queue
        return True

    def s_sqd(self):
        qs = self.live("qp", lambda o: o.state == "RTS")
        if not qs:
            return False
        q = self.rng.choice(qs)
        self.modify(q, "SQD")
        q.state = "SQD"
        self.events(1)
        if self.rng.random() < 0.5:
            self.modify(q, "RTS")
            q.state = "RTS"
        return True

    def s_post_recv(self):
        # Never to a QP in ERR: the kernel's rxe flushes such a receive at
        # once, rdma-core's librxe only writes its ring and the flush
        # waits for the next kernel entry; that is provider timing, not
        # a contract (see intended.py).
        qs = self.live("qp", lambda o: o.srq < 0 and
                       o.state not in ("RESET", "ERR"))
        if self.invalid():
            qs = self.live("qp", lambda o: o.srq < 0 and o.state != "ERR")
        srqs = self.live("srq")
        mrs = self.live("mr", lambda m: m.ok)
        if not mrs or not (qs or srqs):
            return False
        use_srq = srqs and (not qs or self.rng.random() < 0.4)
        target = self.rng.choice(srqs if use_srq else qs)
        same_pd = [m for m in mrs if m.pd == target.pd]
        if not same_pd:
            return False
        m = self.rng.choice(same_pd)
        if use_srq and target.posted >= target.max_wr:
            return False
        if not use_srq and target.posted >= 16:
            return False
        n = self.rng.randint(1, 3)
        if target.doomed:
            return False
        for _ in range(n):
            self.recv(target, m, use_srq)
            if use_srq or target.state != "RESET":
                target.posted += 1
        return True

    def deliver(self, dst, expect_events):
        """The receive a message to `dst` consumes, if any; SRQ limit."""
        if dst.state not in ("RTR", "RTS", "SQD"):
            return
        rq = self.rq_of(dst)
        if rq.posted <= 0:
            return
        rq.posted -= 1
        self.kinds["cq"][dst.rcq].pending += 1
        if dst.srq >= 0 and rq.limit and rq.posted < rq.limit:
            rq.limit = 0
            expect_events.append(1)

    def s_post_send(self):
        qs = self.live("qp", lambda o: o.state == "RTS")
        if not qs:
            return False
        q = self.rng.choice(qs)
        mrs = self.live("mr", lambda m: m.pd == q.pd)
        if not mrs:
            return False
        m = self.rng.choice(mrs)
        ln = self.rng.choice([0, 1, 8, 64, 200, 256])
        imm = self.rng.choice([0, 0, 0x1234abcd])
        sig = int(self.rng.random() < 0.8)
        ev = []
        if q.type == "RC":
            p = self.kinds["qp"][q.peer]
            rq = self.rq_of(p)
            # Never without a receive waiting: RNR retries are timing.
            if not p.live or rq.posted <= 0 or \
               p.state not in ("RTR", "RTS") or self.doomed(p):
                return False
            self.emit("ibv_post_send", f"post_send({q.idx}, {m.idx}, "
                      f"{self.next_wr()}, {ln}, {imm:#x}, {sig}, -1, -1, "
                      "QKEY, -1);")
            self.deliver(p, ev)
        else:
            ahs = self.live("ah", lambda a: a.pd == q.pd)
            dsts = self.live("qp", lambda o: o.type == "UD")
            if not ahs:
                return False
            a = self.rng.choice(ahs)
            d = self.rng.choice(dsts)
            if self.doomed(d):
                return False
            qkey, opcode = "QKEY", -1
            # No RDMA WRITE on UD: librxe accepts the post and fails the QP
            # (a cascade), the shim refuses it (intended.py AVOIDED).
            if self.invalid():
                qkey = "0x22222222"     # dropped silently by the receiver
            self.emit("ibv_post_send", f"post_send({q.idx}, {m.idx}, "
                      f"{self.next_wr()}, {ln}, {imm:#x}, {sig}, {a.idx}, "
                      f"{d.idx}, {qkey}, {opcode});")
            if opcode != -1:
                return True
            if qkey == "QKEY":
                self.deliver(d, ev)
        if sig:
            self.kinds["cq"][q.scq].pending += 1
        if ev:
            self.events(len(ev))
        return True

    # One-sided operations: (opcode, remote access bit it needs, needs a
    # local LOCAL_WRITE MR, consumes a peer receive).
    RDMA_OPS = ((0, 2, False, False), (1, 2, False, True),
                (4, 4, True, False), (5, 8, True, False),
                (6, 8, True, False))

    def s_post_rdma(self):
        """RDMA WRITE (with immediate), READ or an atomic on an RC pair."""
        qs = self.live("qp", lambda o: o.state == "RTS" and o.type == "RC"
                       and o.peer is not None)
        if not qs:
            return False
        q = self.rng.choice(qs)
        p = self.kinds["qp"][q.peer]
        if not p.live or p.state not in ("RTR", "RTS") or self.doomed(p):
            return False
        op, need, local_write, imm = self.rng.choice(self.RDMA_OPS)
        mrs = self.live("mr", lambda m: m.pd == q.pd and
                        (m.ok or not local_write))
        rmrs = self.live("mr", lambda m: m.pd == p.pd and m.access & need)
        if not mrs or not rmrs:
            return False
        if imm and self.rq_of(p).posted <= 0:
            return False    # RNR retries are timing
        m, rm = self.rng.choice(mrs), self.rng.choice(rmrs)
        ln = 8 if op >= 5 else self.rng.choice([0, 1, 8, 64, 256])
        sig = int(self.rng.random() < 0.8)
        cmp = self.rng.choice([0, 0, 5])
        self.emit("ibv_post_send", f"post_rdma({q.idx}, {m.idx}, {rm.idx}, "
                  f"{self.next_wr()}, {op}, {ln}, "
                  f"{0x5eed0000 + self.wr_id if imm else 0:#x}, {sig}, "
                  f"{cmp});")
        ev = []
        if imm:
            self.deliver(p, ev)
        if sig:
            self.kinds["cq"][q.scq].pending += 1
        if ev:
            self.events(len(ev))
        return True

    def s_poll(self):
        cqs = self.live("cq")
        if not cqs:
            return False
        c = self.rng.choice(cqs)
        self.emit("ibv_poll_cq", f"poll_cq({c.idx}, "
                  f"{min(c.pending, max(c.cqe, 1))});")
        c.pending = 0
        return True

    def s_modify_srq(self):
        srqs = self.live("srq")
        if not srqs:
            return False
        s = self.rng.choice(srqs)
        if self.invalid():
            # A limit above max_wr, or the unsupported resize bit.
            self.emit("ibv_modify_srq", f"modify_srq({s.idx}, "
                      f"{s.max_wr + 100}, IBV_SRQ_LIMIT);")
            return True
        if s.posted < 1:
            return False
        lim = self.rng.randint(1, s.posted)
        self.emit("ibv_modify_srq", f"modify_srq({s.idx}, {lim}, "
                  "IBV_SRQ_LIMIT);")
        s.limit = lim
        return True

    def s_query_srq(self):
        srqs = self.live("srq")
        if not srqs:
            return False
        self.emit("ibv_query_srq", f"query_srq({self.rng.choice(srqs).idx});")
        return True

    def s_create_ah(self):
        pds = self.live("pd")
        if not pds or not self.can_new("ah"):
            return False
        p = self.rng.choice(pds)
        bad = self.rng.choice([1, 2]) if self.invalid() else 0
        a = self.new("ah", pd=p.idx)
        self.emit("ibv_create_ah", f"create_ah({a.idx}, {p.idx}, {bad});")
        if bad:
            a.live = False
        return True

    def s_query_qp(self):
        qs = self.live("qp")
        if not qs:
            return False
        self.emit("ibv_query_qp", f"query_qp({self.rng.choice(qs).idx});")
        return True

    def s_queries(self):
        r = self.rng.random()
        if r < 0.2:
            self.emit("ibv_query_device", "query_device();")
        elif r < 0.4:
            self.emit("ibv_query_port", "query_port(%d);" %
                      (self.rng.choice([0, 2]) if self.invalid() else 1))
        elif r < 0.6:
            self.emit("ibv_query_gid", "query_gid(%d);" %
                      self.rng.choice([0, 1, 2, -1, 4096]))
        elif r < 0.8:
            self.emit("ibv_query_gid_ex", "query_gid_ex(%d);" %
                      self.rng.choice([0, 1, 2, 4096]))
        else:
            # Valid indices only: the errno for a bad one diverges, see
            # regress/query_pkey_bad_index.c.
            self.emit("ibv_query_pkey", "query_pkey(0);")
        return True

    def s_strings(self):
        k = self.rng.choice([0, 5, 15, 19, 20])
        self.emit("ibv_event_type_str",
                  f'ncalls++; line("ibv_event_type_str({k}) = %s", '
                  f"ibv_event_type_str({k}));")
        return True

    def s_create_wq(self):
        pds, cqs = self.live("pd"), self.live("cq")
        if not pds or not cqs:
            return False
        self.emit("ibv_create_wq", f"create_wq({self.rng.choice(pds).idx}, "
                  f"{self.rng.choice(cqs).idx});")
        return True

    # The entry points of the context's op tables (verbs.py's "inline"
    # group, ops_rt.h): family -> (the objects it needs, the verbs it
    # calls).  Each call is self-contained: what it makes it destroys, so
    # the model is unchanged.  ibv_bind_mw is not drawn: over the shim no
    # memory window exists to bind, and on ib_uverbs the bind is a posted
    # request whose completion would change the rest of the trace.
    OPS = {
        "query": ((), ("ibv_query_device_ex", "ibv_query_rt_values_ex")),
        "qp_ex": (("pd", "cq"), ("ibv_create_qp_ex", "ibv_qp_to_qp_ex",
                                 "ibv_destroy_qp")),
        "srq_ex": (("pd", "cq"), ("ibv_create_srq_ex", "ibv_destroy_srq")),
        "srq": (("srq",), ("ibv_get_srq_num", "ibv_post_srq_ops")),
        "cq": (("cq",), ("ibv_modify_cq",)),
        "qp": (("qp",), ("ibv_modify_qp_rate_limit", "ibv_query_ece",
                         "ibv_set_ece", "ibv_query_qp_data_in_order")),
        "open_qp": (("qp",), ("ibv_open_qp",)),
        "domains": (("pd",), ("ibv_alloc_td", "ibv_dealloc_td",
                              "ibv_alloc_parent_domain", "ibv_open_xrcd",
                              "ibv_close_xrcd")),
        "memory": (("mr",), ("ibv_alloc_dm", "ibv_reg_dm_mr", "ibv_free_dm",
                             "ibv_alloc_null_mr", "ibv_advise_mr",
                             "ibv_reg_dmabuf_mr")),
        "flows": (("qp",), ("ibv_create_flow", "ibv_destroy_flow",
                            "ibv_create_flow_action_esp",
                            "ibv_modify_flow_action_esp",
                            "ibv_destroy_flow_action", "ibv_create_counters",
                            "ibv_attach_counters_point_flow",
                            "ibv_read_counters", "ibv_destroy_counters")),
        "rwq": ((), ("ibv_create_rwq_ind_table",
                     "ibv_destroy_rwq_ind_table")),
        "import": (("mr",), ("ibv_import_device", "ibv_import_pd",
                             "ibv_unimport_pd", "ibv_import_mr",
                             "ibv_unimport_mr", "ibv_import_dm",
                             "ibv_unimport_dm")),
        "mw": (("pd",), ("ibv_alloc_mw", "ibv_dealloc_mw")),
        "mcast": (("pd", "cq"), ("ibv_attach_mcast", "ibv_detach_mcast")),
    }

    def s_ops(self):
        fams = [f for f, (needs, _) in self.OPS.items()
                if all(self.live(k) for k in needs)]
        if not fams:
            return False
        # the families that need nothing are there from the first step:
        # left equal, they would crowd out the others
        fam = self.rng.choices(fams, [3 if self.OPS[f][0] else 1
                                      for f in fams])[0]
        pick = self.rng.choice
        if fam in ("qp_ex", "srq_ex", "mcast"):
            p, c = pick(self.live("pd")).idx, pick(self.live("cq")).idx
            args = {"qp_ex": f"{p}, {c}", "mcast": f"{p}, {c}",
                    "srq_ex": f"{p}, {c}, {self.rng.randint(0, 3)}"}[fam]
        elif fam in ("memory", "import"):
            m = pick(self.live("mr"))
            args = f"{m.pd}, {m.idx}"
        elif fam == "qp":
            args = f"{pick(self.live('qp')).idx}, {self.rng.randint(0, 1)}"
        elif fam in ("srq", "cq", "open_qp", "flows"):
            kind = {"open_qp": "qp", "flows": "qp"}.get(fam, fam)
            args = str(pick(self.live(kind)).idx)
        elif fam in ("domains", "mw"):
            args = str(pick(self.live("pd")).idx)
        else:
            args = ""
        fn = {"qp_ex": "create_qp_ex", "srq_ex": "create_srq_ex",
              "cq": "modify_cq", "rwq": "rwq_ind_table"}.get(fam, fam)
        verbs_called = self.OPS[fam][1]
        self.emit(verbs_called[0], f"ops_{fn}({args});")
        self.used.update(verbs_called)
        return True

    def s_srq_limit_scenario(self):
        """A UD QP on an SRQ, receives posted, limit armed, one message."""
        pds = self.live("pd")
        mrs = [m for m in self.live("mr", lambda m: m.ok)]
        if not pds or not mrs or not self.can_new("srq") \
           or not self.can_new("qp") or not self.can_new("ah") \
           or not self.can_new("cq"):
            return False
        m = self.rng.choice(mrs)
        p = self.kinds["pd"][m.pd]
        self.s_create_cq_valid()
        c = self.kinds["cq"][-1]
        s = self.new("srq", pd=p.idx, posted=0, limit=0, max_wr=16)
        self.emit("ibv_create_srq", f"create_srq({s.idx}, {p.idx}, 16);")
        q = self.s_create_qp("UD", rcq=c, srq=s)
        if not q:
            return False
        self.modify(q, "INIT")
        self.modify(q, "RTR")
        self.modify(q, "RTS")
        q.state = "RTS"
        k = self.rng.randint(2, 4)
        for _ in range(k):
            self.recv(s, m, srq=True)
        s.posted = k
        self.emit("ibv_modify_srq", f"modify_srq({s.idx}, {k}, IBV_SRQ_LIMIT);")
        s.limit = k
        a = self.new("ah", pd=p.idx)
        self.emit("ibv_create_ah", f"create_ah({a.idx}, {p.idx}, 0);")
        self.emit("ibv_post_send", f"post_send({q.idx}, {m.idx}, "
                  f"{self.next_wr()}, 32, 0, 1, {a.idx}, {q.idx}, QKEY, -1);")
        ev = []
        self.deliver(q, ev)
        self.kinds["cq"][q.scq].pending += 1
        self.events(len(ev))
        self.s_poll_cq(c)
        return True

    def s_rc_pair_scenario(self):
        """Two RC QPs of one PD connected to each other, receives posted:
        what one-sided operations and RC sends need, which the single
        steps rarely line up by chance."""
        mrs = self.live("mr", lambda m: m.ok)
        cqs = self.live("cq", lambda c: c.cqe >= QP_CQ_MIN)
        if not mrs or len(self.kinds["qp"]) + 2 > MAX_PER_KIND:
            return False
        m = self.rng.choice(mrs)
        p = self.kinds["pd"][m.pd]
        if not p.live:
            return False
        if not self.live("mr", lambda x: x.pd == p.idx and x.access == 15) \
           and self.can_new("mr"):
            # an MR open to every one-sided operation
            r = self.new("mr", pd=p.idx, access=15, ok=1)
            self.emit("ibv_reg_mr", f"reg_mr({r.idx}, {p.idx}, 0xf);")
        if not cqs:
            if not self.can_new("cq"):
                return False
            self.s_create_cq_valid()
            cqs = [self.kinds["cq"][-1]]
        pair = []
        for _ in range(2):
            q = self.new("qp", type="RC", pd=p.idx,
                         scq=self.rng.choice(cqs).idx,
                         rcq=self.rng.choice(cqs).idx, srq=-1,
                         state="RESET", peer=None, posted=0, limit=0)
            self.emit("ibv_create_qp",
                      f"create_qp({q.idx}, {p.idx}, IBV_QPT_RC, {q.scq}, "
                      f"{q.rcq}, -1, 16);")
            self.modify(q, "INIT")
            q.state = "INIT"
            pair.append(q)
        a, b = pair
        self.modify(a, "RTR", b.idx)
        self.modify(b, "RTR", a.idx)
        for q in pair:
            self.modify(q, "RTS")
            q.state = "RTS"
        a.peer, b.peer = b.idx, a.idx
        for q in pair:
            for _ in range(self.rng.randint(1, 3)):
                self.recv(q, m)
                q.posted += 1
        return True

    def s_cq_overrun_scenario(self):
        """A recv CQ with cqe 1, several receives, the QP to ERR."""
        pds = self.live("pd")
        mrs = self.live("mr", lambda m: m.ok)
        if not pds or not mrs or not self.can_new("cq") \
           or not self.can_new("qp"):
            return False
        m = self.rng.choice(mrs)
        c = self.new("cq", cqe=1, pending=0)
        self.emit("ibv_create_cq", f"create_cq({c.idx}, 1, 0);")
        q = self.new("qp", type=self.rng.choice(["RC", "UD"]), pd=m.pd,
                     scq=c.idx, rcq=c.idx, srq=-1, state="RESET", peer=None,
                     posted=0, limit=0)
        self.emit("ibv_create_qp", f"create_qp({q.idx}, {m.pd}, "
                  f"IBV_QPT_{q.type}, {c.idx}, {c.idx}, -1, 16);")
        self.modify(q, "INIT")
        q.state = "INIT"
        for _ in range(self.rng.randint(2, 5)):
            self.recv(q, m)
            q.posted += 1
        self.modify(q, "ERR")
        q.state = "ERR"
        c.pending += q.posted
        q.posted = 0
        self.events(1)
        self.s_poll_cq(c)
        # The overrun CQ goes with its QP: how many more completions an
        # overrun CQ refuses (each one a CQ_ERR) is provider timing.
        self.destroy("qp", q)
        self.destroy("cq", c)
        return True

    def s_create_cq_valid(self):
        c = self.new("cq", cqe=QP_CQ_MIN, pending=0)
        self.emit("ibv_create_cq", f"create_cq({c.idx}, {QP_CQ_MIN}, 0);")

    def s_poll_cq(self, c):
        self.emit("ibv_poll_cq", f"poll_cq({c.idx}, {min(c.pending, c.cqe)});")
        c.pending = 0

    def events(self, expect):
        self.emit("ibv_get_async_event", f"events({expect});")
        self.used.add("ibv_ack_async_event")

    # ---- destroys -------------------------------------------------------
    DESTROY = {"qp": ("ibv_destroy_qp", "qp", "q"),
               "srq": ("ibv_destroy_srq", "srq", "srq"),
               "cq": ("ibv_destroy_cq", "cq", "cq"),
               "ah": ("ibv_destroy_ah", "ah", "ah"),
               "mr": ("ibv_dereg_mr", "mr", "mr"),
               "pd": ("ibv_dealloc_pd", "pd", "pd")}

    def busy(self, kind, o):
        if kind == "pd":
            return any(x.pd == o.idx for k in ("qp", "srq", "ah", "mr")
                       for x in self.live(k))
        if kind == "cq":
            return any(o.idx in (x.scq, x.rcq) for x in self.live("qp"))
        if kind == "srq":
            return any(x.srq == o.idx for x in self.live("qp"))
        return False

    def destroy(self, kind, o):
        fn, tab, nm = self.DESTROY[kind]
        self.emit(fn, f'DESTROY({fn}, {tab}, {o.idx}, "{nm}");')
        if not self.busy(kind, o):
            o.live = False
            if kind == "mr":
                for x in self.live("qp") + self.live("srq"):
                    if o.idx in x.rx_mrs:
                        x.doomed = True
            if kind == "qp":
                for x in self.live("qp", lambda x: x.peer == o.idx):
                    x.peer = None
                    if x.type == "RC" and x.state == "RTS":
                        x.state = "DEAD-PEER"   # keep sends away from it
            return True
        return False

    def s_destroy(self):
        cands = [(k, o) for k in self.DESTROY for o in self.live(k)]
        if not cands:
            return False
        k, o = self.rng.choice(cands)
        if self.busy(k, o) and not self.invalid():
            return False
        self.destroy(k, o)
        return True

    def teardown(self):
        self.out.append("\t/* teardown, random order (EBUSY on the way) */")
        self.events(0)
        for c in self.live("cq"):
            self.s_poll_cq(c)
        while True:
            cands = [(k, o) for k in self.DESTROY for o in self.live(k)]
            if not cands:
                break
            k, o = self.rng.choice(cands)
            self.destroy(k, o)

    STEPS = (
        ("s_alloc_pd", 3), ("s_reg_mr", 4), ("s_reg_mr_mw_bind", 1),
        ("s_create_cq", 4), ("s_create_srq", 2), ("s_create_qp", 6),
        ("s_qp_init", 6), ("s_connect", 6), ("s_bad_transition", 1),
        ("s_qp_err", 2), ("s_qp_reset", 1), ("s_sqd", 2),
        ("s_post_recv", 8), ("s_post_send", 10), ("s_post_rdma", 6),
        ("s_poll", 6),
        ("s_modify_srq", 2), ("s_query_srq", 1), ("s_create_ah", 3),
        ("s_query_qp", 2), ("s_queries", 3), ("s_strings", 1),
        ("s_create_wq", 1), ("s_ops", 3), ("s_srq_limit_scenario", 1),
        ("s_cq_overrun_scenario", 1), ("s_rc_pair_scenario", 2),
        ("s_destroy", 3),
    )

    def generate(self):
        names = [n for n, _ in self.STEPS]
        weights = [w for _, w in self.STEPS]
        done = tries = 0
        while done < self.steps and tries < self.steps * 20:
            tries += 1
            if getattr(self, self.rng.choices(names, weights)[0])():
                done += 1
        self.teardown()
        return self.render()

    def render(self):
        head = ["/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */",
                f"/* Generated by selftests/ib_async/gen/gen.py {self.seed} "
                f"--steps {self.steps}: do not edit. */",
                '#include "difftest_rt.h"', "", "int main(void)", "{",
                "\tsetup();"]
        return "\n".join(head + self.out + ["\treturn finish();", "}", ""])


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("seed", type=int)
    ap.add_argument("--steps", type=int, default=40)
    a = ap.parse_args(argv)
    sys.stdout.write(Program(a.seed, a.steps).generate())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
