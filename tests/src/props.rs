//! The property-test runner shared by the hardening tests: a case count from `PROPTEST_CASES`,
//! no failure files, the number of cases run printed, the shrunk input in the panic message.

use proptest::strategy::Strategy;
use proptest::test_runner::{Config, TestCaseError, TestError, TestRunner};
use std::cell::Cell;

/// The number of cases: `PROPTEST_CASES` if set, else `default`.
pub fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Runs a property with `n` cases and no failure file; panics with the shrunk input on failure.
pub fn run<S: Strategy>(
    name: &str,
    n: u32,
    strategy: S,
    test: impl Fn(S::Value) -> Result<(), TestCaseError>,
) where
    S::Value: std::fmt::Debug,
{
    let mut runner = TestRunner::new(Config {
        cases: cases(n),
        failure_persistence: None,
        ..Config::default()
    });
    let count = Cell::new(0u64);
    let start = std::time::Instant::now();
    let result = runner.run(&strategy, |v| {
        count.set(count.get() + 1);
        test(v)
    });
    eprintln!(
        "{name}: {} cases run ({} configured) in {:.2} s",
        count.get(),
        cases(n),
        start.elapsed().as_secs_f64()
    );
    match result {
        Ok(()) => {}
        Err(TestError::Fail(reason, value)) => {
            panic!("{name} failed: {reason}\nminimal failing input: {value:#?}")
        }
        Err(TestError::Abort(reason)) => panic!("{name} aborted: {reason}"),
    }
}
