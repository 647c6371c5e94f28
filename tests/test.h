/*
 * test.h: a tiny test harness. Each TEST registers itself by name; a test
 * binary runs one named test or all of them. Assertions print both sides.
 *
 *	TEST(tiling_is_exact) {
 *		EXPECT_INT_EQ(c.nchunks, 3);
 *		ASSERT_TRUE(p != NULL);   // ASSERT_* return from the test
 *	}
 */
#ifndef CASTLS_TEST_H
#define CASTLS_TEST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef void (*TestFn)(void);

void test_register(const char *name, TestFn fn);
/* Records a failure at file:line; returns false so ASSERT_* can return. */
bool test_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Directory of tests/fixtures and of the build (set by CMake). */
const char *test_fixture_dir(void);
const char *test_build_dir(void);
/* Reads tests/fixtures/<name> into a heap buffer (caller frees with
 * free()); aborts the test binary if it is missing. */
char *test_read_fixture(const char *name, size_t *len);

#define TEST(name)                                                   \
	static void test_##name(void);                               \
	__attribute__((constructor)) static void test_reg_##name(void) \
	{                                                            \
		test_register(#name, test_##name);                   \
	}                                                            \
	static void test_##name(void)

#define CHECK_(cond, ret, ...)                                              \
	do {                                                                \
		if (!(cond)) {                                              \
			test_fail(__FILE__, __LINE__, __VA_ARGS__);         \
			ret;                                                \
		}                                                           \
	} while (0)

#define EXPECT_TRUE(c) CHECK_((c), (void)0, "expected true: %s", #c)
#define ASSERT_TRUE(c) CHECK_((c), return, "expected true: %s", #c)

#define INT_CMP_(a, b, ret)                                                 \
	do {                                                                \
		long long a_ = (long long)(a), b_ = (long long)(b);         \
		CHECK_(a_ == b_, ret, "%s == %s: %lld != %lld", #a, #b, a_, \
		       b_);                                                 \
	} while (0)
#define EXPECT_INT_EQ(a, b) INT_CMP_(a, b, (void)0)
#define ASSERT_INT_EQ(a, b) INT_CMP_(a, b, return)

#define STR_CMP_(a, b, ret)                                                \
	do {                                                               \
		const char *a_ = (a), *b_ = (b);                           \
		CHECK_(a_ && b_ && strcmp(a_, b_) == 0, ret,               \
		       "%s == %s:\n  got:      \"%s\"\n  expected: \"%s\"", \
		       #a, #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)");     \
	} while (0)
#define EXPECT_STR_EQ(a, b) STR_CMP_(a, b, (void)0)
#define ASSERT_STR_EQ(a, b) STR_CMP_(a, b, return)

#endif
