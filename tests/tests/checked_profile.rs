//! The `checked` profile (`cargo test --profile checked`, run by `.ci/run`) is what it claims:
//! debug assertions on, and arithmetic overflow a panic instead of a wrap. Under the release
//! profile there is nothing to check.

#[test]
#[cfg(debug_assertions)]
fn overflow_panics_under_the_checked_profile() {
    let overflowed = std::panic::catch_unwind(|| {
        let x: u8 = std::hint::black_box(255);
        x + std::hint::black_box(1)
    });
    assert!(overflowed.is_err(), "overflow checks are off");
    let asserted = std::panic::catch_unwind(|| debug_assert!(std::hint::black_box(false)));
    assert!(asserted.is_err(), "debug assertions are off");
}
