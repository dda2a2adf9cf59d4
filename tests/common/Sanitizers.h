//===- Sanitizers.h - What a test may not do under a sanitizer ------------===//
//
// TG_UNDER_ASAN is 1 in AddressSanitizer builds (scripts/test-sanitizers.sh). ASan's
// operator new reports a failed allocation as a fatal out-of-memory instead of throwing
// std::bad_alloc, whatever allocator_may_return_null says, so tests that check how tg turns
// an impossible host allocation into a tg::OutOfMemoryError skip that part there.
//
//===----------------------------------------------------------------------===//
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define TG_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TG_UNDER_ASAN 1
#endif
#endif
#ifndef TG_UNDER_ASAN
#define TG_UNDER_ASAN 0
#endif
