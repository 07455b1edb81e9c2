import { describe, expect, it } from 'vitest'
import { fixtureJson } from '../../test-support/fake-upstream'
import { buildMessagePost, escapeHtml, parseSuffixedSlug, sanitizeMessageHtml, slugForMessage } from '@/lib/office/message-post'
import { DeduplicateQuery, GraphMessage, GraphMessagesPage, PublishQuery } from '@/lib/office/schemas'
import { findDuplicates } from '@/lib/office/service'

const realMessages = () => GraphMessagesPage.parse(fixtureJson('microsoft-graph/serviceAnnouncement-messages-list-value-4-real-messages.json')).value

describe('slugs', () => {
  it.each([
    ['MC172851', 'mc172851'],
    ['mc5', 'mc5'],
    [' MC237349 ', 'mc237349'],
    ['MC', null],
    ['MC12a', null],
    ['SP123', null],
    ['MC123/../x', null],
  ])('%j → %j', (id, slug) => expect(slugForMessage(id)).toBe(slug))

  it.each([
    ['mc123-2', { base: 'mc123', suffix: 2 }],
    ['mc123-17', { base: 'mc123', suffix: 17 }],
    ['mc123', null],
    ['mc123-1', null],
    ['mc123-0', null],
    ['mc123-2-2', null],
    ['news-2', null],
    ['xmc123-2', null],
  ])('suffixed slug %j → %j', (slug, parsed) => expect(parseSuffixedSlug(slug)).toEqual(parsed))

  it('counts a suffixed post as a duplicate only while its base post exists', () => {
    const post = (id: string, slug: string) => ({ id, slug, title: slug, url: `https://b/${slug}/` })
    const posts = [post('1', 'mc1'), post('2', 'mc1-2'), post('3', 'mc1-3'), post('4', 'mc2-2'), post('5', 'welcome-2'), post('6', 'welcome'), post('7', 'mc3')]
    expect(findDuplicates(posts).map((p) => p.id)).toEqual(['2', '3'])
    expect(findDuplicates([])).toEqual([])
  })
})

describe('sanitising', () => {
  it('removes script, styles, event handlers and javascript: links', () => {
    const out = sanitizeMessageHtml(
      '<p onclick="steal()" style="color:red">Hi <script>alert(1)</script><img src=x onerror=alert(1)><a href="javascript:alert(1)">x</a><iframe src="https://evil"></iframe><a href="https://learn.microsoft.com" onmouseover="x()">docs</a></p>',
    )
    expect(out).not.toMatch(/script|onclick|onerror|onmouseover|style=|javascript:|iframe|<img/i)
    expect(out).toContain('<a href="https://learn.microsoft.com" rel="noopener noreferrer" target="_blank">docs</a>')
    expect(out.startsWith('<p>Hi ')).toBe(true)
  })

  it('escapes text', () => {
    expect(escapeHtml(`<b a="1">'&'</b>`)).toBe('&lt;b a=&quot;1&quot;&gt;&#39;&amp;&#39;&lt;/b&gt;')
  })
})

describe('buildMessagePost', () => {
  it('builds the post for a real message, reading enum values in any case', () => {
    const [message] = realMessages()
    const post = buildMessagePost(message)!
    expect(post.slug).toBe('mc237349')
    expect(post.title).toBe('MC237349: Service reminder: Skype for Business Online retires in 6 months')
    expect(post.publishedAt).toBe('2021-02-01T19:23:04.000Z')
    expect(post.html).toContain('<li><strong>Category:</strong> Plan for change</li>')
    expect(post.html).toContain('<li><strong>Action required by:</strong> 2021-07-31</li>')
    expect(post.html).toContain('<h3>More information</h3>')
    expect(post.html).toContain('href="https://docs.microsoft.com/microsoftteams/skype-for-business-online-retirement"')
    expect(post.excerpt.length).toBeLessThanOrEqual(300)
    // The docs spell the same values in PascalCase.
    const pascal = buildMessagePost(
      GraphMessage.parse({ ...message, category: 'PlanForChange', severity: 'High', body: { contentType: 'Html', content: '<p>x</p>' } }),
    )!
    expect(pascal.html).toContain('Plan for change')
    expect(pascal.html).toContain('<li><strong>Severity:</strong> High</li>')
  })

  it('escapes a plain-text body and never trusts titles, services or links', () => {
    const post = buildMessagePost(
      GraphMessage.parse({
        id: 'MC9',
        title: 'T <script>',
        services: ['<b>Teams</b>'],
        details: [
          { name: 'ExternalLink', value: 'javascript:alert(1)' },
          { name: 'BlogLink', value: 'https://ok.example/"><script>' },
        ],
        body: { contentType: 'text', content: 'line <one>\n\nline two' },
      }),
    )!
    expect(post.html).toContain('<p>line &lt;one&gt;</p><p>line two</p>')
    expect(post.html).toContain('&lt;b&gt;Teams&lt;/b&gt;')
    expect(post.html).not.toContain('javascript:')
    expect(post.html).not.toMatch(/<script/i)
    expect(post.title).toBe('MC9: T <script>')
  })

  it('has nothing to publish for an id that is not a Message Center number', () => {
    expect(buildMessagePost(GraphMessage.parse({ id: 'XY1', title: 't' }))).toBeNull()
  })
})

describe('dryRun', () => {
  it.each([
    [{}, true],
    [{ dryRun: 'true' }, true],
    [{ dryRun: 'false' }, false],
  ])('deduplicate %j → dryRun %s', (input, dryRun) => expect(DeduplicateQuery.parse(input).dryRun).toBe(dryRun))

  it.each(['yes', '1', '0', 'TRUE', 'False', 'no'])('deduplicate refuses dryRun=%j', (value) => {
    expect(DeduplicateQuery.safeParse({ dryRun: value }).success).toBe(false)
  })

  it('publish defaults to a real run of at most 50 posts', () => {
    expect(PublishQuery.parse({})).toEqual({ dryRun: false, limit: 50 })
    expect(PublishQuery.parse({ dryRun: 'true', limit: '500' })).toEqual({ dryRun: true, limit: 500 })
    expect(PublishQuery.safeParse({ limit: '501' }).success).toBe(false)
    expect(PublishQuery.safeParse({ dryRun: 'maybe' }).success).toBe(false)
  })
})
