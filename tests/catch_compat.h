// One include for Catch2 2.x (Debian 12) and 3.x (Ubuntu 24.04): tests include this, never Catch2
// directly. The test binaries provide their own main (XSHMEM_CATCH_MAIN in exactly one file).
#ifndef XSHMEM_TESTS_CATCH_COMPAT_H
#define XSHMEM_TESTS_CATCH_COMPAT_H

#if __has_include(<catch2/catch_all.hpp>)
#define XSHMEM_CATCH3 1
#include <catch2/catch_all.hpp>
#else
#define XSHMEM_CATCH2 1
#if defined(XSHMEM_CATCH_MAIN)
#define CATCH_CONFIG_RUNNER
#endif
#include <catch2/catch.hpp>
#endif

#endif  // XSHMEM_TESTS_CATCH_COMPAT_H
