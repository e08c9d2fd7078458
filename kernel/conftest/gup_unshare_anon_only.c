// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* HAVE_GUP_UNSHARE_ANON_ONLY: a read-only long-term pin may hold the zero page (until 6.2) */
#include <linux/mm.h>

/*
 * Until 6.1 a read-only long-term pin unshares only anonymous pages, so it
 * may pin the shared zero page or a private mapping's page cache page;
 * 6.2 made such pins reliable, and gup_must_unshare() takes the VMA (and
 * later left the public header) from then on.
 */
static bool __maybe_unused probe(struct page *page)
{
	return gup_must_unshare(FOLL_PIN, page);
}
