//===- FileIO.h - Whole files written and read safely ---------------------===//
//
// writeFileAtomically is the one way tg writes a file (`tgc run --output`, TG_DUMP and
// `tgc dump --out-dir`, the kernel cache's entries and its nvrtc-version file):
//   - the bytes go to a temporary file in the target's directory, "<name>.tmp.<pid>.<random>",
//     created with O_EXCL; every write(2) and the close(2) are checked (and the fsync(2) of a
//     user's file, below), and the file is renamed over the target only after all of them
//     succeeded. A reader sees the old file or the new one, never a part; on any failure the
//     temporary file is removed and the target is left as it was. An existing regular file's
//     permission bits are kept.
//   - durability follows ownership: a user's file (UserPath) is fsync'ed before the rename, so
//     that a crash right after `tgc run` cannot leave an empty result under the name; tg's own
//     files (OwnedName) are not: they can be made again, the cache checks every entry's length
//     and checksum, and an fsync costs ~9 ms per file here (0.9 ms without, for 200 KB on
//     ext4), which would add a third to each cold kernel compile and more to a TG_DUMP.
//   - SIGXFSZ is blocked in the calling thread for the duration of the write, so that a
//     file-size limit (`ulimit -f`) makes write(2) fail with EFBIG, reported like ENOSPC,
//     instead of killing the process. If the write raised it, the pending signal is consumed
//     before the mask is restored. tg does not set SIGXFSZ to SIG_IGN process-wide, as some
//     servers do (PostgreSQL ignores it so that a limit "works like disk full"): tg is a library
//     inside the user's program, and a signal's disposition belongs to that program.
//   - what is at the path decides the rest (TargetPolicy):
//       UserPath (a path the user named, `tgc run --output`): nothing or a regular file is
//         replaced as above; a symbolic link is followed and the file it finally names is
//         replaced (the link stays a link); a FIFO or a character device (a pipe, /dev/stdout,
//         /dev/null) is opened and written directly, as cp or np.save would, since it cannot
//         be replaced meaningfully; a directory, a dangling link, a socket or a block device is
//         refused with an error.
//       OwnedName (a name tg chose in tg's own directory: cache entries, dump files): whatever
//         is at the name, a link or a FIFO included, is replaced, never followed or opened; a
//         directory is refused (and never removed).
//
// readRegularFile is how tg reads a file it wrote itself (the kernel cache): only a regular
// file, never through a symbolic link, never blocking on a FIFO, never more than a bound, so
// that an odd file at the name (a FIFO, a link to /dev/zero, a directory) is a problem to
// report rather than a hang or an unbounded allocation.
//
// Standard library and POSIX only.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include <sys/types.h>

namespace tg {

enum class TargetPolicy { UserPath, OwnedName };

/// The outcome of writeFileAtomically: converts to true on failure.
struct WriteFailure {
  /// "<path>: <what failed>: <strerror text>" ("out.npy: write error: No space left on
  /// device"); empty on success.
  std::string message;
  int error = 0;  ///< the errno of the failure
  /// The failure is about what is at the path (a directory, a dangling link, ...), not about
  /// the directory or the disk: other files in the same directory may still be written.
  bool atTarget = false;

  explicit operator bool() const { return !message.empty(); }
};

/// Writes the concatenation of `pieces` to `path` (see the banner for how). Never throws but
/// std::bad_alloc.
WriteFailure writeFileAtomically(const std::string& path,
                                 std::initializer_list<std::string_view> pieces,
                                 TargetPolicy policy);

/// What readRegularFile found at a path.
struct RegularFileRead {
  std::optional<std::string> bytes;  ///< the contents, when a regular file was read
  /// When something other than a regular file is at the path: fileKindOf its mode ("a FIFO").
  const char* notRegular = nullptr;
  /// Why a regular file was not read ("cannot be read: Permission denied", "300000000 bytes,
  /// larger than the limit of 268435456"), or why the path could not be examined.
  std::string problem;
  uint64_t size = 0;  ///< a regular file's size (also when it is too large to read)

  /// Nothing at the path (ENOENT, or a missing directory on the way): not a problem.
  bool missing() const { return !bytes && !notRegular && problem.empty(); }
};

/// Reads `path` if it is a regular file of at most `maxBytes`: lstat first (so a device is
/// never opened), then open with O_NOFOLLOW | O_NONBLOCK and check the opened file again (it
/// may have been replaced in between). Never throws but std::bad_alloc.
RegularFileRead readRegularFile(const std::string& path, uint64_t maxBytes);

/// "a directory", "a FIFO", "a symbolic link", "a character device", ... for an st_mode that
/// is not a regular file's (for messages).
const char* fileKindOf(mode_t mode);

}  // namespace tg
