// SPDX-License-Identifier: GPL-2.0
/*
 * The bodies of iba_evsrc.h's helpers: driving the test-only event
 * source.
 */
#define IBA_NO_HARNESS
#include "iba_evsrc.h"
#include "iba_verbs.h"

int iba_evsrc_rt(void)
{
	char buf[8] = "";
	FILE *f = fopen("/sys/kernel/realtime", "r");

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
	}
	return buf[0] == '1';
}

unsigned int iba_evsrc_ncontexts(void)
{
	return iba_evsrc_rt() ? 2 : 3;
}

const char *iba_evsrc_hard(void)
{
	return iba_evsrc_rt() ? "softirq" : "hardirq";
}

int iba_evsrc_write(const char *file, const char *fmt, ...)
{
	char path[256], buf[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), IBA_EVSRC_DIR "/%s", file);
	return iba_write_file(path, buf, n, 0);
}

int iba_evsrc_raise(const char *fmt, ...)
{
	char buf[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return iba_evsrc_write("raise", "%s", buf);
}

int iba_evsrc_add_dev(const char *name, struct iba_dev *dev)
{
	uint64_t t0 = iba_now_ms();
	int found;

	if (iba_write_file(IBA_EVSRC_DBG "/add", name, strlen(name), 0))
		return -1;
	setenv("IB_ASYNC_IBDEV", name, 1);
	while (!(found = !iba_find_dev(dev) && !strcmp(dev->ibdev, name) &&
		 !access(dev->node, F_OK)) && iba_now_ms() - t0 < 10000)
		iba_sleep_ms(20);
	setenv("IB_ASYNC_IBDEV", "evsrc0", 1);
	return found ? 0 : -1;
}

int iba_evsrc_find(const char *kind, unsigned int qpn)
{
	char line[256], k[16];
	unsigned int id, n;
	int best = -1;
	FILE *f = fopen(IBA_EVSRC_DIR "/objects", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%15s %u", k, &id) != 2 || strcmp(k, kind))
			continue;
		if (qpn) {
			char *p = strstr(line, "qpn=");

			if (p && sscanf(p, "qpn=%u", &n) == 1 && n == qpn)
				best = id;
		} else if ((int)id > best) {
			best = id;
		}
	}
	fclose(f);
	return best;
}

int iba_evsrc_wq_state(int id)
{
	char line[256], k[16];
	unsigned int n, state;
	int ret = -1;
	FILE *f = fopen(IBA_EVSRC_DIR "/objects", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "state=");

		if (sscanf(line, "%15s %u", k, &n) == 2 && !strcmp(k, "wq") &&
		    (int)n == id && p && sscanf(p, "state=%u", &state) == 1)
			ret = state;
	}
	fclose(f);
	return ret;
}

int iba_evsrc_present(void)
{
	if (access(IBA_EVSRC_DIR, F_OK))
		iba_load_module("ib_async_evsrc");
	return access(IBA_EVSRC_DIR, F_OK) == 0;
}

const char *iba_evsrc_dev(struct iba_dev *dev)
{
	if (!iba_evsrc_present())
		return "no evsrc0 test device (" IBA_EVSRC_KO ")";
	setenv("IB_ASYNC_IBDEV", "evsrc0", 1);
	if (iba_find_dev(dev) || strcmp(dev->ibdev, "evsrc0"))
		return "no ib_async node for evsrc0";
	return NULL;
}

int iba_evsrc_ud_qp(int fd, uint32_t *pd, uint32_t *cq, uint32_t *qp,
		int *ev_qp)
{
	struct ib_async_create_qp a;
	int ret;

	ret = iba_create_pd(fd, pd);
	if (!ret)
		ret = iba_create_cq(fd, 0xc0, 8, cq);
	if (!ret)
		ret = iba_create_qp(fd, 0x9b, *pd, *cq, IB_UVERBS_QPT_UD, &a);
	if (ret)
		return ret;
	*qp = a.handle;
	*ev_qp = iba_evsrc_find("qp", a.qp_num);
	return *ev_qp < 0 ? -1 : 0;
}

int iba_evsrc_open(struct iba_dev *dev, const char **why)
{
	*why = iba_evsrc_dev(dev);
	if (*why)
		return -1;
	return open(dev->node, O_RDWR | O_NONBLOCK);
}

int iba_evsrc_fixture(struct iba_dev *dev, uint64_t feature,
		      const char *lacking, const char **why)
{
	int fd = iba_evsrc_open(dev, why);

	if (fd >= 0 && feature && !(iba_features(fd) & feature))
		*why = lacking;
	return fd;
}
