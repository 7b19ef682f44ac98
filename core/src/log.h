// xshmem core: the one logger of core and plugins.
//
// Lines look like "[host:pid pe N subsys] level: message". Controlled by XSHMEM_LOG_LEVEL
// (error, warn, info, debug, trace), XSHMEM_LOG_SUBSYS (comma list of subsystems, "^a,b" to
// exclude) and XSHMEM_LOG_FILE (%h = host, %p = pid; default stderr).
#ifndef XSHMEM_CORE_LOG_H
#define XSHMEM_CORE_LOG_H

#include <cstdarg>

#include <xshmem/plugin/common.h>

namespace xshmem::log {

// Reads the XSHMEM_LOG_* variables (again); called by the context at init, usable earlier
// (the logger lazily configures itself on first use).
void configure();
// Tells the logger this process's PE number, for the line prefix (-1: not known yet).
void set_pe(int pe);
bool enabled(xshmem_log_level_t level, const char *subsys);
void write(xshmem_log_level_t level, const char *subsys, const char *file, int line,
           const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void vwrite(xshmem_log_level_t level, const char *subsys, const char *file, int line,
            const char *fmt, va_list ap);
// Whether log lines go to stderr (no XSHMEM_LOG_FILE, or it could not be opened).
bool writes_to_stderr();
// Closes XSHMEM_LOG_FILE if one was opened (finalize).
void shutdown();

}  // namespace xshmem::log

#define XLOG_AT(level, subsys, file, line, ...)                             \
  do {                                                                      \
    if (::xshmem::log::enabled((level), (subsys)))                          \
      ::xshmem::log::write((level), (subsys), (file), (line), __VA_ARGS__); \
  } while (0)
#define XLOG(level, subsys, ...) XLOG_AT(level, subsys, __FILE__, __LINE__, __VA_ARGS__)
#define XLOG_ERROR(subsys, ...) XLOG(XSHMEM_LOG_ERROR, subsys, __VA_ARGS__)
#define XLOG_WARN(subsys, ...) XLOG(XSHMEM_LOG_WARN, subsys, __VA_ARGS__)
#define XLOG_INFO(subsys, ...) XLOG(XSHMEM_LOG_INFO, subsys, __VA_ARGS__)
#define XLOG_DEBUG(subsys, ...) XLOG(XSHMEM_LOG_DEBUG, subsys, __VA_ARGS__)
// Hot-path tracing compiles out of release builds.
#ifdef NDEBUG
#define XLOG_TRACE(subsys, ...) \
  do {                          \
  } while (0)
#else
#define XLOG_TRACE(subsys, ...) XLOG(XSHMEM_LOG_TRACE, subsys, __VA_ARGS__)
#endif

#endif  // XSHMEM_CORE_LOG_H
