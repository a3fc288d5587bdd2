#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gcd_fuzz::matcher_ops(data));
