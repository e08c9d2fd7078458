// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * ibv_init_ah_from_wc() and ibv_create_ah_from_wc() over the shim's
 * context (issue 44: udaddy's server failed "to create reply AH"), for
 * RoCE v2 over IPv4 (IPv4-mapped GIDs, the IPv4 header in the GRH's last
 * 20 bytes), RoCE v2 and v1 over IPv6, and without a GRH; the expected
 * values are those of libibverbs' own implementation (rdma-core 44,
 * verbs.c). A fake kernel answers QUERY_PORT and QUERY_GID from a GID
 * table where each address is there twice, as RoCE v1 first and v2 next,
 * so a lookup that ignores the type finds the wrong index; CREATE_AH
 * keeps the address vector the shim sent, which the test reads back.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "fake_ioctl.h"
#include "fake_tree.h"
#include "tap.h"

static const char *const table[] = {
	"fe80::1", "fe80::1",			/* link-local: v1, v2 */
	"::ffff:10.11.0.1", "::ffff:10.11.0.1",	/* IPv4-mapped: v1, v2 */
	NULL,					/* an empty slot */
	"2001:db8::1", "2001:db8::1",		/* IPv6: v1, v2 */
};
static const uint32_t type[] = {
	IB_UVERBS_GID_TYPE_ROCE_V1, IB_UVERBS_GID_TYPE_ROCE_V2,
	IB_UVERBS_GID_TYPE_ROCE_V1, IB_UVERBS_GID_TYPE_ROCE_V2,
	0,
	IB_UVERBS_GID_TYPE_ROCE_V1, IB_UVERBS_GID_TYPE_ROCE_V2,
};
#define NGID	(sizeof(table) / sizeof(table[0]))
#define V4_V2	3
#define V6_V1	5
#define V6_V2	6

static struct ib_async_av created;
static int ncreated;

static int fake_ioctl(int fd, unsigned long req, void *arg)
{
	(void)fd;
	if (req == IB_ASYNC_IOC_QUERY_PORT) {
		struct ib_async_port_attr *p = arg;

		p->state = IBV_PORT_ACTIVE;
		p->gid_tbl_len = NGID;
		p->pkey_tbl_len = 1;
		return 0;
	}
	if (req == IB_ASYNC_IOC_QUERY_GID) {
		struct ib_async_query_gid *g = arg;

		if (g->port_num != 1 || g->index >= NGID) {
			errno = EINVAL;
			return -1;
		}
		if (!table[g->index]) {
			errno = ENODATA;
			return -1;
		}
		inet_pton(AF_INET6, table[g->index], g->gid);
		g->gid_type = type[g->index];
		return 0;
	}
	if (req == IB_ASYNC_IOC_CREATE_AH) {
		struct ib_async_create_ah *a = arg;

		created = a->av;
		ncreated++;
		a->handle = 42;
		return 0;
	}
	return FAKE_IOCTL_PASS;
}

static void gid_of(const char *s, union ibv_gid *gid)
{
	inet_pton(AF_INET6, s, gid->raw);
}

static int same_gid(const void *a, const char *s)
{
	union ibv_gid g;

	gid_of(s, &g);
	return !memcmp(a, g.raw, sizeof(g.raw));
}

/* The 40-byte GRH buffer of a RoCE v2 IPv4 receive: IPv4 header last. */
static void roce_v2_ipv4(struct ibv_grh *grh, uint8_t first, const char *src,
			 const char *dst, uint8_t tos, uint8_t ttl)
{
	struct iphdr *ip = (void *)((char *)grh + 20);
	const uint16_t *w = (const void *)ip;
	uint32_t sum = 0;
	unsigned int i;

	memset(grh, first, 20);	/* undefined: whatever the buffer held */
	memset(ip, 0, sizeof(*ip));
	ip->version = 4;
	ip->ihl = 5;
	ip->tos = tos;
	ip->tot_len = htons(20 + 8 + 12 + 100);
	ip->ttl = ttl;
	ip->protocol = IPPROTO_UDP;
	inet_pton(AF_INET, src, &ip->saddr);
	inet_pton(AF_INET, dst, &ip->daddr);
	for (i = 0; i < 10; i++)
		sum += w[i];
	sum = (sum & 0xffff) + (sum >> 16);
	ip->check = (uint16_t)~sum;
}

static void roce_ipv6(struct ibv_grh *grh, uint8_t next, const char *src,
		      const char *dst, uint8_t tclass, uint32_t flow,
		      uint8_t hops)
{
	memset(grh, 0, sizeof(*grh));
	grh->version_tclass_flow = htobe32(6u << 28 | (uint32_t)tclass << 20 |
					   flow);
	grh->next_hdr = next;
	grh->hop_limit = hops;
	gid_of(src, &grh->sgid);
	gid_of(dst, &grh->dgid);
}

static struct ibv_wc wc_of(int flags)
{
	struct ibv_wc wc;

	memset(&wc, 0, sizeof(wc));
	wc.status = IBV_WC_SUCCESS;
	wc.opcode = IBV_WC_RECV;
	wc.wc_flags = flags;
	wc.slid = 0x12;
	wc.sl = 3;
	wc.dlid_path_bits = 1;
	wc.byte_len = 140;
	return wc;
}

static void test_ipv4(struct ibv_context *ctx)
{
	struct ibv_wc wc = wc_of(IBV_WC_GRH);
	struct ibv_ah_attr a;
	struct ibv_grh grh;
	uint8_t first[] = { 0x00, 0xa5, 0x60 };
	unsigned int i;
	int ret;

	/* The first 20 bytes: zero, junk, and junk that reads as IPv6's 6. */
	for (i = 0; i < sizeof(first); i++) {
		roce_v2_ipv4(&grh, first[i], "10.11.0.2", "10.11.0.1", 0x48, 63);
		memset(&a, 0xee, sizeof(a));
		errno = 0;
		ret = ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &a);
		OK(ret == 0, "IPv4 GRH (first bytes %#x): 0 (%d, errno %d)",
		   first[i], ret, errno);
		OK(a.is_global == 1 && a.port_num == 1,
		   "IPv4: global, port 1 (%u, %u)", a.is_global, a.port_num);
		OK(same_gid(a.grh.dgid.raw, "::ffff:10.11.0.2"),
		   "IPv4: dgid is the sender's IPv4-mapped GID");
		OK(a.grh.sgid_index == V4_V2,
		   "IPv4: sgid_index %u is the receiver's RoCE v2 GID (%u)",
		   a.grh.sgid_index, V4_V2);
		OK(a.grh.hop_limit == 63 && a.grh.traffic_class == 0x48,
		   "IPv4: hop limit from TTL, class from TOS (%u, %#x)",
		   a.grh.hop_limit, a.grh.traffic_class);
		OK(a.dlid == 0x12 && a.sl == 3 && a.src_path_bits == 1,
		   "IPv4: dlid, sl, path bits from the wc (%#x, %u, %u)",
		   a.dlid, a.sl, a.src_path_bits);
	}
	roce_v2_ipv4(&grh, 0, "10.11.0.2", "10.11.0.9", 0, 64);
	errno = 0;
	ret = ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &a);
	OK(ret != 0 && errno == EINVAL,
	   "IPv4 to an address not in the table: fails, EINVAL (%d)", errno);
	roce_v2_ipv4(&grh, 0, "10.11.0.2", "239.1.1.7", 0, 64);
	errno = 0;
	ret = ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &a);
	OK(ret != 0 && errno == EINVAL,
	   "IPv4 multicast destination: fails, EINVAL (%d)", errno);
}

static void test_ipv6(struct ibv_context *ctx)
{
	struct ibv_wc wc = wc_of(IBV_WC_GRH);
	struct ibv_ah_attr a;
	struct ibv_grh grh;

	int ret;

	roce_ipv6(&grh, IPPROTO_UDP, "2001:db8::2", "2001:db8::1", 0x2e,
		  0x12345, 9);
	errno = 0;
	ret = ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &a);
	OK(ret == 0, "IPv6 RoCE v2 GRH: 0 (%d, errno %d)", ret, errno);
	OK(a.is_global == 1 && same_gid(a.grh.dgid.raw, "2001:db8::2"),
	   "IPv6 v2: global, dgid is the sender's GID");
	OK(a.grh.sgid_index == V6_V2, "IPv6 v2: sgid_index %u (%u)",
	   a.grh.sgid_index, V6_V2);
	OK(a.grh.hop_limit == 9 && a.grh.traffic_class == 0x2e &&
	   a.grh.flow_label == 0x12345,
	   "IPv6 v2: hop limit, class, flow label from the GRH (%u, %#x, %#x)",
	   a.grh.hop_limit, a.grh.traffic_class, a.grh.flow_label);

	roce_ipv6(&grh, 0x1b, "fe80::2", "fe80::1", 0, 0, 1);
	ret = ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &a);
	OK(ret == 0 && a.grh.sgid_index == 0 &&
	   same_gid(a.grh.dgid.raw, "fe80::2"),
	   "IPv6 RoCE v1 GRH: the v1 GID's index (%u)", a.grh.sgid_index);
	roce_ipv6(&grh, 0x1b, "2001:db8::2", "2001:db8::1", 0, 0, 1);
	ret = ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &a);
	OK(ret == 0 && a.grh.sgid_index == V6_V1,
	   "IPv6 RoCE v1 GRH past an empty slot: index %u (%u)",
	   a.grh.sgid_index, V6_V1);

	roce_ipv6(&grh, 6, "2001:db8::2", "2001:db8::1", 0, 0, 1);
	errno = 0;
	ret = ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &a);
	OK(ret != 0 && errno == EPROTONOSUPPORT,
	   "IPv6 GRH followed by TCP: EPROTONOSUPPORT (%d)", errno);
	roce_ipv6(&grh, IPPROTO_UDP, "2001:db8::2", "ff0e::1", 0, 0, 1);
	errno = 0;
	ret = ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &a);
	OK(ret != 0 && errno == EINVAL,
	   "IPv6 multicast destination: EINVAL (%d)", errno);
}

static void test_no_grh(struct ibv_context *ctx)
{
	struct ibv_wc wc = wc_of(0);
	struct ibv_ah_attr a;
	struct ibv_grh grh;

	roce_ipv6(&grh, IPPROTO_UDP, "2001:db8::2", "2001:db8::7", 0, 0x777, 1);
	memset(&a, 0xee, sizeof(a));
	OK(ibv_init_ah_from_wc(ctx, 1, &wc, &grh, &a) == 0,
	   "no GRH: 0, whatever the buffer holds");
	OK(a.is_global == 0 && a.dlid == 0x12 && a.sl == 3 &&
	   a.src_path_bits == 1 && a.port_num == 1 && a.grh.sgid_index == 0 &&
	   a.grh.hop_limit == 0,
	   "no GRH: a local AH from the wc alone (global %u, dlid %#x)",
	   a.is_global, a.dlid);
}

static void test_create(struct ibv_context *ctx)
{
	struct ibv_pd pd = { .context = ctx, .handle = 7 };
	struct ibv_wc wc = wc_of(IBV_WC_GRH);
	struct ibv_grh grh;
	struct ibv_ah *ah;

	/* RoCE has no LIDs: no path bits, which the shim's AHs refuse */
	wc.dlid_path_bits = 0;
	roce_v2_ipv4(&grh, 0, "10.11.0.2", "10.11.0.1", 0, 64);
	ncreated = 0;
	ah = ibv_create_ah_from_wc(&pd, &wc, &grh, 1);
	OK(ah && ah->pd == &pd && ncreated == 1,
	   "ibv_create_ah_from_wc: an AH, one CREATE_AH (errno %d)", errno);
	OK(created.is_global == 1 && created.sgid_index == V4_V2 &&
	   created.hop_limit == 64 && created.port_num == 1 &&
	   same_gid(created.dgid, "::ffff:10.11.0.2"),
	   "CREATE_AH's vector: the reply's (sgid %u, hops %u)",
	   created.sgid_index, created.hop_limit);
	free(ah);	/* the fake kernel holds nothing to destroy */

	roce_v2_ipv4(&grh, 0, "10.11.0.2", "10.11.0.9", 0, 64);
	ncreated = 0;
	OK(!ibv_create_ah_from_wc(&pd, &wc, &grh, 1) && ncreated == 0,
	   "ibv_create_ah_from_wc without the GID: NULL, nothing created");
}

int main(void)
{
	struct ft_fake0 ft;
	struct ibv_context *ctx;

	if (ft_fake0_setup(&ft))
		return OK(0, "fake tree"), tap_done();
	ctx = ft_fake0_open(&ft);
	if (!OK(ctx != NULL, "open fake0"))
		return tap_done();
	test_ipv4(ctx);
	test_ipv6(ctx);
	test_no_grh(ctx);
	test_create(ctx);
	ibv_close_device(ctx);
	ft_fake0_teardown(&ft);
	return tap_done();
}
