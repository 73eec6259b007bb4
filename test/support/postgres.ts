// The tests' Postgres: a cluster of their own (shared with the benchmarks).
export { postgresBin, startPostgres, type Postgres } from '../../scripts/postgres-cluster.mjs';
