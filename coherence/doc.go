// Package coherence scores topics, each a list of word ids, the way
// topic-model users score them: by how often their words occur together
// in a reference corpus (NPMI, C_V and UMass, Röder et al. 2015's
// framework) and by how many distinct words the topics use between them
// (Diversity). Co-occurrence is counted over documents, or over sliding
// windows of tokens where the reference keeps the words' order.
//
// Besides the standard library it uses internal/parallel; it must not
// import dataset, model, solver, graph or cmd, so that any tokenized
// corpus can be scored.
package coherence
