// The tests' seeded generator is the benchmark's (mulberry32), so a seed replays a
// test's choices; one copy of it lives in bench/harness/random.ts.
export { seeded as rng } from '../../bench/harness/random.js'
