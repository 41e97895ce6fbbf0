/* test_metrics.c -- CMocka unit tests for ductiled --metrics' address
 * (src/daemon/metrics_http.c): PORT, HOST:PORT and [IPV6]:PORT accepted,
 * everything else refused with a message naming the option. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "metrics_http.h"

static void accepts(const char *spec, const char *host, int port)
{
    char h[64] = "", err[256] = "";
    int p = -1;
    assert_int_equal(mhttp_parse(spec, h, sizeof h, &p, err, sizeof err), 0);
    assert_string_equal(h, host);
    assert_int_equal(p, port);
}

static void refuses(const char *spec)
{
    char h[64] = "", err[256] = "";
    int p = -1;
    assert_int_equal(mhttp_parse(spec, h, sizeof h, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "--metrics"));
    assert_int_equal(p, -1);
}

static void test_accepted(void **state)
{
    (void)state;
    accepts("9464", "127.0.0.1", 9464); /* loopback by default */
    accepts("1", "127.0.0.1", 1);
    accepts("65535", "127.0.0.1", 65535);
    accepts("0.0.0.0:9464", "0.0.0.0", 9464);
    accepts("localhost:80", "localhost", 80);
    accepts("[::1]:9464", "::1", 9464);
    accepts("[::]:9100", "::", 9100);
}

static void test_refused(void **state)
{
    (void)state;
    const char *bad[] = {"", "0", "65536", "-1", "x", "9464x", " 9464", "+9464", ":9464", "host:", "host:0", "::1:9464",
                         "[::1]", "[]:9464", "1:2:3", "host:99999999999999999999"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) refuses(bad[k]);
    char h[4], err[256];
    int p = -1;
    assert_int_equal(mhttp_parse("longhostname:9464", h, sizeof h, &p, err, sizeof err), -1); /* does not fit */
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_accepted), cmocka_unit_test(test_refused)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
