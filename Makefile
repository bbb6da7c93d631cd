# tlsgate - see README.md.  `make`, `make check`, `make demo`.
CC	?= cc
# A firmware build points CONF at a directory with its own defaults.h.
CONF	?= conf
WARN	= -std=c11 -Wall -Wextra -Werror -pedantic
CFLAGS	?= -O2 -g
CPPFLAGS += -D_POSIX_C_SOURCE=200809L -Isrc -Iport -I$(CONF)
BEARSSL_CFLAGS ?=
BEARSSL_LIBS ?= -lbearssl
B	?= build

SRC	= src/main.c src/config.c src/tls.c src/slot.c src/loop.c src/log.c
PORT	= port/posix/port.c
OBJ	= $(SRC:%.c=$(B)/%.o) $(B)/port/posix/port.o

all: $(B)/tlsgate

$(B)/tlsgate: $(OBJ)
	$(CC) $(LDFLAGS) -o $@ $(OBJ) $(BEARSSL_LIBS)

$(B)/src/%.o: src/%.c src/*.h port/port.h $(CONF)/defaults.h
	@mkdir -p $(@D)
	$(CC) $(WARN) $(CFLAGS) $(CPPFLAGS) $(BEARSSL_CFLAGS) -c -o $@ $<

# The port layer needs the platform's own headers (accept4, getrandom).
$(B)/port/posix/port.o: port/posix/port.c port/port.h
	@mkdir -p $(@D)
	$(CC) $(WARN) $(CFLAGS) -Iport -c -o $@ $<

clean:
	rm -rf build

.PHONY: all clean
