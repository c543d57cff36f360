import java.io.File;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;

/**
 * The HdrHistogram Java reference for `npm run bench`: reads interval logs named
 * `<client>-<OP>.hdr` with HistogramLogReader, adds every interval histogram of an operation into
 * one Histogram, and prints per operation the count and the values at the percentiles benchlens
 * shows, with the time it took, as one line of JSON.
 */
public final class HdrSum {
  private static final double[] PERCENTILES = {50, 99, 99.9};

  public static void main(String[] args) throws Exception {
    long started = System.nanoTime();
    Map<String, Histogram> byOp = new TreeMap<>();
    long intervals = 0;
    for (String path : args) {
      String stem = new File(path).getName().replaceAll("\\.hdr$", "");
      String op = stem.substring(stem.indexOf('-') + 1);
      Histogram sum = byOp.computeIfAbsent(op, k -> new Histogram(3));
      HistogramLogReader reader = new HistogramLogReader(path);
      try {
        EncodableHistogram h;
        while ((h = reader.nextIntervalHistogram()) != null) {
          sum.add((Histogram) h);
          intervals++;
        }
      } finally {
        reader.close();
      }
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    StringBuilder out = new StringBuilder();
    out.append(String.format(Locale.ROOT, "{\"seconds\":%.3f,\"intervals\":%d,\"ops\":{", seconds, intervals));
    boolean first = true;
    for (Map.Entry<String, Histogram> e : byOp.entrySet()) {
      Histogram h = e.getValue();
      out.append(first ? "" : ",").append('"').append(e.getKey()).append("\":{\"count\":").append(h.getTotalCount());
      for (double p : PERCENTILES) out.append(String.format(Locale.ROOT, ",\"p%s\":%d", p == Math.floor(p) ? String.valueOf((long) p) : String.valueOf(p), h.getValueAtPercentile(p)));
      out.append('}');
      first = false;
    }
    System.out.println(out.append("}}"));
  }
}
