#!/usr/bin/env bats
# The KUnit suite ran at boot; its cases are reported one by one by the
# test runner, these check the suite as a whole.

load helpers

@test "KUnit suite ktask ran at boot and reported its results" {
	[ -r "$KUNIT_RESULTS" ]
	run grep -cE '^\s+(ok|not ok) [0-9]+ ktask_test_' "$KUNIT_RESULTS"
	assert_success
	expect "$output" -ge 12 "ktask_test_ cases reported"
}

@test "KUnit suite ktask passed as a whole" {
	run grep -E '^(ok|not ok) [0-9]+ ktask$' "$KUNIT_RESULTS"
	assert_success
	assert_output --regexp '^ok [0-9]+ ktask$'
}

@test "a task went multithreaded during the suite" {
	run grep -E 'threads used: [2-9]' "$KUNIT_RESULTS"
	assert_success
}
