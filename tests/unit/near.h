/*
 * assert_near for the cmocka unit tests: a floating-point value within a
 * tolerance, printing both values when it is not.  Include after cmocka.h.
 */
#ifndef JOULESTAT_TEST_NEAR_H
#define JOULESTAT_TEST_NEAR_H

#include <math.h>

#define assert_near(got, want, tol) do {					\
	double got_ = (got), want_ = (want);					\
	if (!(fabs(got_ - want_) <= (tol))) {					\
		print_error("%s = %.9f, want %.9f (tolerance %g)\n", #got,	\
		    got_, want_, (double)(tol));				\
		fail();								\
	}									\
} while (0)

#endif
