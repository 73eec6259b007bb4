// In each test worker: the processes it starts write their coverage where coverage.ts reads it.
import { RAW_COVERAGE } from './coverage.js';

process.env.NODE_V8_COVERAGE = RAW_COVERAGE;
