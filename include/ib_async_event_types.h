/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The RDMA event types, the one list of their names: the kernel's trace
 * header, the test modules, the tests, ib_async_watch and the generator
 * (selftests/ib_async/gen/verbs.py, which parses this file) all expand it.
 * Not uAPI: the types' values are (enum ib_async_event_type, equal to the
 * kernel's enum ib_event_type and rdma-core's enum ibv_event_type); which
 * names tools print is not.
 *
 * Each row is type(name, element): name is the enumerator without its
 * prefix (IB_ASYNC_EV_, IB_EVENT_, IBV_EVENT_), element the member of
 * rdma-core's struct ibv_async_event element that names what the event
 * concerns. Rows are in the order of the types' values, from 0 (the
 * selftests' library checks it at build time).
 */
#ifndef IB_ASYNC_EVENT_TYPES_H
#define IB_ASYNC_EVENT_TYPES_H

/*
 * The rows as they are: a list handed over as the one argument of this
 * macro is one value, which is how checkpatch reads a macro's body.
 */
#ifndef IB_ASYNC_ROWS
#define IB_ASYNC_ROWS(...)	__VA_ARGS__
#endif

/* The types every rdma-core's enum ibv_event_type has: 0 to 19 */
#define IB_ASYNC_IBV_EVENT_TYPES(type)					\
	IB_ASYNC_ROWS(type(CQ_ERR, cq)					\
		      type(QP_FATAL, qp)				\
		      type(QP_REQ_ERR, qp)				\
		      type(QP_ACCESS_ERR, qp)				\
		      type(COMM_EST, qp)				\
		      type(SQ_DRAINED, qp)				\
		      type(PATH_MIG, qp)				\
		      type(PATH_MIG_ERR, qp)				\
		      type(DEVICE_FATAL, port_num)			\
		      type(PORT_ACTIVE, port_num)			\
		      type(PORT_ERR, port_num)				\
		      type(LID_CHANGE, port_num)			\
		      type(PKEY_CHANGE, port_num)			\
		      type(SM_CHANGE, port_num)				\
		      type(SRQ_ERR, srq)				\
		      type(SRQ_LIMIT_REACHED, srq)			\
		      type(QP_LAST_WQE_REACHED, qp)			\
		      type(CLIENT_REREGISTER, port_num)			\
		      type(GID_CHANGE, port_num)			\
		      type(WQ_FATAL, wq))

/*
 * Every type of the RDMA core: those, then 20, which only the uAPI, 7.x
 * kernels and newer rdma-core headers have.
 */
#define IB_ASYNC_EVENT_TYPES(type)					\
	IB_ASYNC_ROWS(IB_ASYNC_IBV_EVENT_TYPES(type)			\
		      type(DEVICE_SPEED_CHANGE, port_num))

/*
 * The types whose element names one kind of thing (cq, qp, srq, wq, or
 * port_num: the unaffiliated types), as a constant mask of their values
 * (IB_ASYNC_EV_*, all below 64) made from the rows above:
 * IB_ASYNC_ELEMENT_MASK(qp) has the bit of each type about a QP.
 */
#define IB_ASYNC_ELEMENT_ID_cq		1
#define IB_ASYNC_ELEMENT_ID_qp		2
#define IB_ASYNC_ELEMENT_ID_srq		3
#define IB_ASYNC_ELEMENT_ID_wq		4
#define IB_ASYNC_ELEMENT_ID_port_num	5

/* One row's bit if its element is @kind's, then an "or" for the next. */
#define IB_ASYNC_ELEMENT_BIT(kind, name, element)			\
	IB_ASYNC_ROWS((IB_ASYNC_ELEMENT_ID_##element ==			\
		       IB_ASYNC_ELEMENT_ID_##kind ?			\
		       1ULL << IB_ASYNC_EV_##name : 0ULL) |)
#define IB_ASYNC_ELEMENT_BIT_cq(name, element)				\
	IB_ASYNC_ELEMENT_BIT(cq, name, element)
#define IB_ASYNC_ELEMENT_BIT_qp(name, element)				\
	IB_ASYNC_ELEMENT_BIT(qp, name, element)
#define IB_ASYNC_ELEMENT_BIT_srq(name, element)				\
	IB_ASYNC_ELEMENT_BIT(srq, name, element)
#define IB_ASYNC_ELEMENT_BIT_wq(name, element)				\
	IB_ASYNC_ELEMENT_BIT(wq, name, element)
#define IB_ASYNC_ELEMENT_BIT_port_num(name, element)			\
	IB_ASYNC_ELEMENT_BIT(port_num, name, element)

#define IB_ASYNC_ELEMENT_MASK(kind)					\
	(IB_ASYNC_EVENT_TYPES(IB_ASYNC_ELEMENT_BIT_##kind) 0ULL)

#endif /* IB_ASYNC_EVENT_TYPES_H */
