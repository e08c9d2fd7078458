// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Test helper: journald's end of its native protocol, for a host with no
 * journald running. "journal_sink SOCKET N" binds the datagram socket
 * SOCKET (where libsystemd's sd_journal_send*() write:
 * /run/systemd/journal/socket, in the test's mount namespace), takes N
 * entries, and prints each one's fields as KEY=VALUE lines (a newline in
 * a value as \n), an empty line after each entry. Exits 1 if 10 s pass
 * without an entry.
 *
 * An entry is one datagram of fields, each "KEY=VALUE\n", or, for a value
 * that holds a newline, "KEY\n", its length as a little-endian 64-bit
 * number, the value, "\n" (systemd.journal-fields(7), "native protocol").
 */
#include <endian.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static char buf[1 << 16];

static void print_value(const char *v, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (v[i] == '\n')
			fputs("\\n", stdout);
		else
			putchar(v[i]);
	}
	putchar('\n');
}

/* Returns 0, or -1 if the datagram is not the native protocol. */
static int print_entry(const char *p, size_t len)
{
	const char *end = p + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eq = memchr(p, '=', (size_t)(end - p));
		uint64_t vlen;

		if (!nl)
			return -1;
		if (eq && eq < nl) {
			fwrite(p, 1, (size_t)(eq - p) + 1, stdout);
			print_value(eq + 1, (size_t)(nl - eq - 1));
			p = nl + 1;
			continue;
		}
		if ((size_t)(end - nl - 1) < sizeof(vlen))
			return -1;
		memcpy(&vlen, nl + 1, sizeof(vlen));
		vlen = le64toh(vlen);
		if (vlen >= (size_t)(end - nl - 1 - sizeof(vlen)) ||
		    nl[1 + sizeof(vlen) + vlen] != '\n')
			return -1;
		fwrite(p, 1, (size_t)(nl - p), stdout);
		putchar('=');
		print_value(nl + 1 + sizeof(vlen), (size_t)vlen);
		p = nl + 1 + sizeof(vlen) + vlen + 1;
	}
	putchar('\n');
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct pollfd pfd = { .events = POLLIN };
	long n;

	if (argc != 3 || strlen(argv[1]) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "usage: journal_sink SOCKET N\n");
		return 2;
	}
	n = atol(argv[2]);
	strcpy(sa.sun_path, argv[1]);
	pfd.fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (pfd.fd < 0 || bind(pfd.fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("journal_sink: bind");
		return 1;
	}
	for (long i = 0; i < n; i++) {
		ssize_t len;

		if (poll(&pfd, 1, 10000) != 1) {
			fprintf(stderr, "journal_sink: %ld of %ld entries\n", i, n);
			return 1;
		}
		len = recv(pfd.fd, buf, sizeof(buf), 0);
		if (len < 0 || print_entry(buf, (size_t)len)) {
			fprintf(stderr, "journal_sink: bad entry\n");
			return 1;
		}
		fflush(stdout);
	}
	return 0;
}
