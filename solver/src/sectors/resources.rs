//! Free memory and disk space, checked before a unit is solved so that a solve that cannot
//! finish says so with the numbers instead of failing late.

use std::path::Path;

/// Memory the kernel reports as available (`MemAvailable` of `/proc/meminfo`), in bytes; the
/// environment variable `RETRO_AVAILABLE_MEMORY` (bytes), when set, stands in for it: for
/// tests, and to plan a solve for another machine.
pub fn available_memory() -> Option<u64> {
    if let Some(Ok(bytes)) = std::env::var("RETRO_AVAILABLE_MEMORY")
        .ok()
        .map(|v| v.parse())
    {
        return Some(bytes);
    }
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Free space for an unprivileged writer on the file system holding `path`, in bytes; the
/// environment variable `RETRO_FREE_DISK` (bytes), when set, stands in for it: for tests, and
/// to plan a solve for a smaller disk.
pub fn free_disk(path: &Path) -> Option<u64> {
    match std::env::var("RETRO_FREE_DISK").ok().map(|v| v.parse()) {
        Some(Ok(bytes)) => Some(bytes),
        _ => file_system_free(path),
    }
}

/// Free space for an unprivileged writer on the file system holding `path`, in bytes.
#[cfg(unix)]
fn file_system_free(path: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    let mut st = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `c` is a valid NUL-terminated path and `st` points to writable memory of the
    // right type; statvfs only writes into it, and we read it only when the call succeeded.
    let rc = unsafe { libc::statvfs(c.as_ptr(), st.as_mut_ptr()) };
    if rc != 0 {
        return None;
    }
    // SAFETY: statvfs returned 0, so it filled the struct.
    let st = unsafe { st.assume_init() };
    // The field types differ between platforms (32 or 64 bits).
    #[allow(clippy::unnecessary_cast)]
    Some(st.f_bavail as u64 * st.f_frsize as u64)
}

/// Free space (unknown on this platform).
#[cfg(not(unix))]
fn file_system_free(_path: &Path) -> Option<u64> {
    None
}

/// Peak resident memory of this process so far (`VmHWM` of `/proc/self/status`), in bytes.
pub fn peak_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = text.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Anonymous resident memory of this process now (`RssAnon` of `/proc/self/status`), in
/// bytes: what it allocated and touched, without the pages of mapped files (tables), which the
/// kernel can drop at any time.
pub fn anonymous_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = text.lines().find(|l| l.starts_with("RssAnon:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Bytes for people, in binary units: `51.9 GiB`, `174 MiB`, `3 KiB` (KiB rounded up, so
/// only nothing prints as `0 KiB`).
pub fn human(bytes: u64) -> String {
    let g = bytes as f64 / (1u64 << 30) as f64;
    if g >= 1.0 {
        format!("{g:.1} GiB")
    } else if bytes >= 1 << 20 {
        format!("{:.0} MiB", bytes as f64 / (1u64 << 20) as f64)
    } else {
        format!("{} KiB", bytes.div_ceil(1024))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_machine_reports_memory_and_disk() {
        assert!(available_memory().is_some_and(|m| m > 1 << 20));
        assert!(free_disk(Path::new(".")).is_some());
        // This test's own heap is resident, and below everything the process has touched.
        let anon = anonymous_memory().expect("RssAnon");
        assert!(anon > 0 && anon <= peak_memory().expect("VmHWM"));
        assert_eq!(human(3 << 30), "3.0 GiB");
        assert_eq!(human(5 << 20), "5 MiB");
        assert_eq!(human(3 << 10), "3 KiB");
        assert_eq!(human(1), "1 KiB");
        assert_eq!(human(0), "0 KiB");
    }
}
