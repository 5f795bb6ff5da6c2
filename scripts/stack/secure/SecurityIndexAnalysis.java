package stack.secure;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.lucene.analysis.CharArraySet;
import org.apache.lucene.analysis.TokenFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.email.UAX29URLEmailTokenizer;
import org.apache.lucene.analysis.pattern.PatternCaptureGroupTokenFilter;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.elasticsearch.index.analysis.TokenFilterFactory;
import org.elasticsearch.index.analysis.TokenizerFactory;
import org.elasticsearch.indices.analysis.AnalysisModule.AnalysisProvider;
import org.elasticsearch.plugins.AnalysisPlugin;
import org.elasticsearch.plugins.Plugin;

/**
 * The three analysis components that Elasticsearch's security index (.security-7: native users,
 * API keys) names in its settings, for the server-only "integ-test-zip" distribution, which lacks the
 * analysis-common module that normally provides them: the `uax_url_email` tokenizer and the
 * `pattern_capture` and `unique` token filters, each on the Lucene class (or the behaviour) that
 * analysis-common uses. Built and installed by scripts/stack/secure-up.sh into the secured stack's own
 * copy of the distribution only (docs/secure-stack.md); nothing else is added.
 */
public class SecurityIndexAnalysis extends Plugin implements AnalysisPlugin {

  private static TokenFilterFactory filter(String name, java.util.function.UnaryOperator<TokenStream> make) {
    return new TokenFilterFactory() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public TokenStream create(TokenStream input) {
        return make.apply(input);
      }
    };
  }

  @Override
  public Map<String, AnalysisProvider<TokenizerFactory>> getTokenizers() {
    return Map.of("uax_url_email", (indexSettings, env, name, settings) -> TokenizerFactory.newFactory(name, () -> {
      UAX29URLEmailTokenizer tokenizer = new UAX29URLEmailTokenizer();
      tokenizer.setMaxTokenLength(settings.getAsInt("max_token_length", 255));
      return tokenizer;
    }));
  }

  @Override
  public Map<String, AnalysisProvider<TokenFilterFactory>> getTokenFilters() {
    return Map.of(
        "pattern_capture",
        AnalysisPlugin.requiresAnalysisSettings((indexSettings, env, name, settings) -> {
          List<String> regexes = settings.getAsList("patterns");
          Pattern[] patterns = regexes.stream().map(Pattern::compile).toArray(Pattern[]::new);
          boolean preserveOriginal = settings.getAsBoolean("preserve_original", true);
          return filter(name, input -> new PatternCaptureGroupTokenFilter(input, preserveOriginal, patterns));
        }),
        "unique",
        (indexSettings, env, name, settings) -> filter(name, UniqueFilter::new));
  }

  /** Drops every token whose term was already seen in the stream (analysis-common's `unique`). */
  static final class UniqueFilter extends TokenFilter {
    private final CharTermAttribute term = addAttribute(CharTermAttribute.class);
    private final CharArraySet seen = new CharArraySet(8, false);

    UniqueFilter(TokenStream input) {
      super(input);
    }

    @Override
    public boolean incrementToken() throws IOException {
      while (input.incrementToken()) {
        char[] copy = new char[term.length()];
        System.arraycopy(term.buffer(), 0, copy, 0, term.length());
        if (!seen.contains(copy, 0, copy.length)) {
          seen.add(copy);
          return true;
        }
      }
      return false;
    }

    @Override
    public void reset() throws IOException {
      super.reset();
      seen.clear();
    }
  }
}
