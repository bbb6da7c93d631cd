/*
 * main.c - start-up: arguments, config, keys, listener, then the loop.
 *
 * Exit codes (skarnet style): 0 done, 2 bad usage, config, certificate
 * or key (nothing was started), 111 a system resource was refused
 * (cannot listen, descriptor limit).
 */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "defaults.h"
#include "log.h"
#include "loop.h"
#include "port.h"
#include "slot.h"
#include "tls.h"

static void
put_line(const char *s)
{
	printf("%s\n", s);
}

static void
print_footprint(const struct config *c)
{
	size_t slot = slot_table_bytes(1), cache = (size_t)c->cache * 100;
	size_t other = tls_static_bytes() - (size_t)TLSGATE_MAX_CACHE * 100 +
	    loop_static_bytes();
	size_t total = slot * c->slots + cache + other;
	size_t max = slot * TLSGATE_MAX_SLOTS + (size_t)TLSGATE_MAX_CACHE * 100 +
	    other;

	printf("# footprint (bytes)\n");
	printf("slot = %zu (TLS context %zu + input buffer %zu + output "
	    "buffer %zu + state %zu)\n", slot, sizeof(br_ssl_server_context),
	    (size_t)BR_SSL_BUFSIZE_INPUT, (size_t)TLSGATE_OBUF_SIZE,
	    slot - sizeof(br_ssl_server_context) - BR_SSL_BUFSIZE_INPUT -
	    TLSGATE_OBUF_SIZE);
	printf("slots = %u x %zu = %zu\n", c->slots, slot, slot * c->slots);
	printf("session_cache = %u x 100 = %zu\n", c->cache, cache);
	printf("other static = %zu\n", other);
	printf("total = %zu (worst case for this config)\n", total);
	printf("compile-time maximum = %zu (%d slots, %d sessions)\n", max,
	    TLSGATE_MAX_SLOTS, TLSGATE_MAX_CACHE);
}

static void
usage(void)
{
	fprintf(stderr, "usage: tlsgate [-t] [-c file]\n"
	    "  -c file  read the configuration from file\n"
	    "  -t       check the configuration, print it and the memory "
	    "footprint, exit\n");
}

int
main(int argc, char **argv)
{
	static struct config cfg;
	const char *path = NULL, *why;
	char err[512], addr[64];
	int check = 0, lfd;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-t") == 0)
			check = 1;
		else if (strcmp(argv[i], "-c") == 0 && i + 1 < argc)
			path = argv[++i];
		else {
			usage();
			return 2;
		}
	}
	config_defaults(&cfg);
	if (path != NULL && config_load(&cfg, path, err, sizeof(err)) < 0)
		log_fatal(2, "%s", err);
	log_level = (int)cfg.log_level;
	log_rate = cfg.log_rate;
	if (tls_setup(&cfg, err, sizeof(err)) < 0)
		log_fatal(2, "%s", err);
	if (check) {
		config_print(&cfg, put_line);
		print_footprint(&cfg);
		tls_wipe();
		return 0;
	}
	if (port_fd_limit(2 * cfg.slots + 16, &why) < 0)
		log_fatal(111, "%s", why);
	port_addr_str(&cfg.listen, addr, sizeof(addr));
	lfd = port_listen(&cfg.listen, TLSGATE_BACKLOG, &why);
	if (lfd < 0)
		log_fatal(111, "listen %s: %s", addr, why);
	port_signals_init();
	slot_table_init(&cfg);
	if (port_drop_privileges(cfg.user, cfg.group, cfg.chroot, &why) < 0)
		log_fatal(111, "dropping privileges (user \"%s\", group \"%s\", "
		    "chroot \"%s\"): %s", cfg.user, cfg.group, cfg.chroot, why);
	if (cfg.seccomp && port_sandbox(&why) < 0)
		log_fatal(111, "seccomp: %s", why);
	log_msg(LOG_INFO, "listening on %s", addr);
	lfd = loop_run(&cfg, lfd);
	tls_wipe();
	return lfd;
}
