import fc from 'fast-check';
import { genericCsvProperties } from './generic-csv.props.ts';
import { ycsbTextArb } from './generators.ts';
import { sandboxReader } from './harness.ts';
import { hdrLogProperties } from './hdr-log.props.ts';
import { hgrmProperties } from './hgrm.props.ts';
import { linePrefixProperties } from './line-prefix.props.ts';
import { producerArb, producerCases, PRODUCER_IDS } from './producer-fixtures.ts';
import { formatSuite } from './suite.ts';
import { ycsbRawProperties } from './ycsb-raw.props.ts';
import { ycsbTextProperties } from './ycsb-text.props.ts';

/**
 * Every format module's properties (one `<format>.props.ts` each; the load tools' modules on their
 * real fixtures), in one test file so that they share one reading worker: starting one costs more
 * than a CI run of a format's properties.
 */
const read = sandboxReader();

hdrLogProperties(read);
hgrmProperties(read);
ycsbRawProperties(read);
ycsbTextProperties(read);
genericCsvProperties(read);

const allProducerCases = [];
for (const id of PRODUCER_IDS) {
  const cases = await producerCases(id);
  allProducerCases.push(...cases);
  formatSuite(id, read, producerArb(cases), cases[0]!.path);
}
linePrefixProperties(read, fc.oneof(producerArb(allProducerCases), ycsbTextArb));
