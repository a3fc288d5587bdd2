#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| gcd_fuzz::json_schema(data));
